// What came back: status (nil for file: and data: URLs), headers, length and, for multipart, the part index.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

public struct Response: Sendable, Equatable, Codable {
    public let url: URL
    /// The HTTP status; nil for schemes without one (file:, data:).
    public let statusCode: Int?
    public let headers: HTTPHeaders
    /// The announced body length, or `Response.unknownLength` (-1).
    public let expectedContentLength: Int64
    /// For multipart/x-mixed-replace, the 0-based index of the part these headers open.
    public let part: Int?

    public static let unknownLength: Int64 = -1

    public init(url: URL, statusCode: Int?, headers: HTTPHeaders, expectedContentLength: Int64, part: Int? = nil) {
        self.url = url
        self.statusCode = statusCode
        self.headers = headers
        self.expectedContentLength = expectedContentLength
        self.part = part
    }

    /// The media type without parameters, lowercased: "text/html".
    public var mimeType: String? { headers["Content-Type"].flatMap(MediaType.bare) }

    public var textEncodingName: String? { headers["Content-Type"].flatMap { MediaType.parameter("charset", in: $0) } }

    /// A file name from Content-Disposition, else the URL's last path component; not yet sanitized.
    public var suggestedFilename: String? {
        if let disposition = headers["Content-Disposition"],
           let name = MediaType.parameter("filename", in: disposition), !name.isEmpty {
            return name
        }
        let last = url.lastPathComponent
        return last.isEmpty || last == "/" ? nil : last
    }
}

/// Parameter lookup in header values such as `multipart/x-mixed-replace; boundary="abc"`.
enum MediaType {
    /// The type before any parameters, without the spaces and tabs around it, lowercased; nil when that is empty.
    /// Read as bytes: the model asks for every response's, and splitting, trimming and lowercasing by Character
    /// cost more than the rest of taking in the response.
    static func bare(_ value: String) -> String? {
        let bytes = value.utf8
        let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        let end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.endIndex
        guard let first = bytes[..<end].firstIndex(where: { !isBlank($0) }),
              let last = bytes[first..<end].lastIndex(where: { !isBlank($0) }) else { return nil }
        // Both ends border an ASCII byte or the string's ends, so they fall between scalars.
        let type = Substring(bytes[first...last])
        let asIs = type.utf8.allSatisfy { $0 < 0x80 && !($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z")) }
        return asIs ? String(type) : type.lowercased()
    }

    static func parameter(_ name: String, in value: String) -> String? {
        for piece in value.split(separator: ";").dropFirst() {
            let pair = piece.split(separator: "=", maxSplits: 1)
            guard pair.count == 2,
                  pair[0].trimmedSpaces().caseInsensitiveEquals(name) else { continue }
            var v = pair[1].trimmedSpaces()
            if v.count >= 2, v.hasPrefix("\""), v.hasSuffix("\"") { v = String(v.dropFirst().dropLast()) }
            return v
        }
        return nil
    }
}
