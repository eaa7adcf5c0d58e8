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
    /// The status line's words ("Not Found"), as the server sent them (not sanitized); nil for HTTP/2 and schemes
    /// without a status.
    public let reasonPhrase: String?
    public let headers: HTTPHeaders
    /// The announced body length, or `Response.unknownLength` (-1).
    public let expectedContentLength: Int64
    /// For multipart/x-mixed-replace, the 0-based index of the part these headers open.
    public let part: Int?

    public static let unknownLength: Int64 = -1

    public init(url: URL, statusCode: Int?, reasonPhrase: String? = nil, headers: HTTPHeaders, expectedContentLength: Int64,
                part: Int? = nil) {
        self.url = url
        self.statusCode = statusCode
        self.reasonPhrase = reasonPhrase
        self.headers = headers
        self.expectedContentLength = expectedContentLength
        self.part = part
    }

    /// The media type without parameters, lowercased: "text/html".
    public var mimeType: String? { headers["Content-Type"].flatMap(MediaType.bare) }

    public var textEncodingName: String? { headers["Content-Type"].flatMap { MediaType.parameter("charset", in: $0) } }

    /// A file name from Content-Disposition, else the URL's last path component; not yet sanitized.
    public var suggestedFilename: String? {
        // RFC 6266: `filename*` (any script, percent-encoded) before `filename`, the fallback for old clients.
        if let disposition = headers["Content-Disposition"] {
            if let name = MediaType.parameter("filename*", in: disposition).flatMap(MediaType.extendedValue), !name.isEmpty {
                return name
            }
            if let name = MediaType.parameter("filename", in: disposition), !name.isEmpty { return name }
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

    /// The value of the parameter `name` (any case) after the type: a token, or a quoted string read whole (its
    /// `;` and `=` kept, `\"` and `\\` unescaped: RFC 9110's quoted-string); nil when there is none. Split on every
    /// `;`, `filename="Q3 report; final.pdf"` was read as `"Q3 report`.
    static func parameter(_ name: String, in value: String) -> String? {
        let bytes = Array(value.utf8)
        let semicolon = UInt8(ascii: ";"), quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
        func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        func text(_ slice: ArraySlice<UInt8>) -> String {
            let start = slice.firstIndex { !isBlank($0) } ?? slice.endIndex
            let end = slice[start...].lastIndex { !isBlank($0) }.map { $0 + 1 } ?? start
            return String(decoding: slice[start..<end], as: UTF8.self)
        }
        var i = bytes.firstIndex(of: semicolon) ?? bytes.endIndex  // past the type
        while i < bytes.count {
            i += 1  // the `;`
            let nameStart = i
            while i < bytes.count, bytes[i] != UInt8(ascii: "="), bytes[i] != semicolon { i += 1 }
            let key = text(bytes[nameStart..<i])
            guard i < bytes.count, bytes[i] == UInt8(ascii: "=") else { continue }  // no value: on to the next `;`
            i += 1
            while i < bytes.count, isBlank(bytes[i]) { i += 1 }
            let found: String
            if i < bytes.count, bytes[i] == quote {
                var unquoted: [UInt8] = []
                i += 1
                while i < bytes.count, bytes[i] != quote {
                    if bytes[i] == backslash, i + 1 < bytes.count { i += 1 }
                    unquoted.append(bytes[i])
                    i += 1
                }
                while i < bytes.count, bytes[i] != semicolon { i += 1 }  // the closing quote, and anything after it
                found = String(decoding: unquoted, as: UTF8.self)
            } else {
                let start = i
                while i < bytes.count, bytes[i] != semicolon { i += 1 }
                found = text(bytes[start..<i])
            }
            if key.caseInsensitiveEquals(name) { return found }
        }
        return nil
    }

    /// An RFC 8187 value (`UTF-8'en'%E2%82%AC%20rates.txt`) as text: UTF-8 or ISO-8859-1; nil for another charset,
    /// a broken escape, or bytes that are not text in the charset named.
    static func extendedValue(_ value: String) -> String? {
        let parts = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        guard let bytes = DataURL.percentDecoded(String(parts[2])) else { return nil }
        switch parts[0].lowercased() {
        case "utf-8": return String(validating: bytes, as: UTF8.self)
        case "iso-8859-1": return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
        default: return nil
        }
    }
}
