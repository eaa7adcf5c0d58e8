// Decodes RFC 2397 data: URLs, which libcurl does not handle, into a media type and bytes.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

struct DataURL: Equatable {
    let mediaType: String
    let body: Data

    /// Nil when the text is not a well-formed data: URL (no comma, bad base64, bad percent-escape).
    init?(_ string: String) {
        guard string.lowercased().hasPrefix("data:"), let comma = string.firstIndex(of: ",") else { return nil }
        let header = string[string.index(string.startIndex, offsetBy: 5)..<comma]
        let payload = String(string[string.index(after: comma)...])
        var params = header.split(separator: ";").map(String.init)
        let isBase64 = params.last?.lowercased() == "base64"
        if isBase64 { params.removeLast() }
        let type = params.first.flatMap { $0.contains("/") ? $0 : nil }
        var media = type ?? "text/plain"
        let extra = params.dropFirst(type == nil ? 0 : 1)
        if type == nil && extra.isEmpty { media += ";charset=US-ASCII" }
        for p in extra { media += ";" + p }
        guard let decodedBytes = Self.percentDecoded(payload) else { return nil }
        if isBase64 {
            let compact = String(decoding: decodedBytes, as: UTF8.self).filter { !$0.isWhitespace }
            guard let bytes = Data(base64Encoded: Self.padded(compact)) else { return nil }
            body = bytes
        } else {
            body = Data(decodedBytes)
        }
        mediaType = media
    }

    /// Bytes with every `%XY` escape decoded; nil for a malformed escape (also RFC 8187's values, in
    /// `MediaType.extendedValue`).
    static func percentDecoded(_ s: String) -> [UInt8]? {
        var out: [UInt8] = []
        var bytes = s.utf8.makeIterator()
        while let b = bytes.next() {
            guard b == UInt8(ascii: "%") else { out.append(b); continue }
            guard let hi = bytes.next().flatMap(hexValue), let lo = bytes.next().flatMap(hexValue) else { return nil }
            out.append(hi << 4 | lo)
        }
        return out
    }

    /// A hexadecimal digit's value.
    static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func padded(_ s: String) -> String {
        let rest = s.count % 4
        return rest == 0 ? s : s + String(repeating: "=", count: 4 - rest)
    }
}
