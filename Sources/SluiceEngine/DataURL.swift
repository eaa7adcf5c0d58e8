// Decodes RFC 2397 data: URLs, which libcurl does not handle, into a media type and bytes.
import Foundation

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
        guard let decoded = payload.removingPercentEncoding ?? (payload.contains("%") ? nil : payload) else { return nil }
        if isBase64 {
            let compact = decoded.filter { !$0.isWhitespace }
            guard let bytes = Data(base64Encoded: Self.padded(compact)) else { return nil }
            body = bytes
        } else {
            body = Data(decoded.utf8)
        }
        mediaType = media
    }

    private static func padded(_ s: String) -> String {
        let rest = s.count % 4
        return rest == 0 ? s : s + String(repeating: "=", count: 4 - rest)
    }
}
