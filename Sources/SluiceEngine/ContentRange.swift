// Parses `Content-Range: bytes FIRST-LAST/TOTAL` (RFC 9110 section 14.4), which tells a resumed download where
// the server's bytes start.

public struct ContentRange: Equatable, Sendable {
    public let first: Int64
    public let last: Int64
    /// Nil when the server wrote `*` (length unknown).
    public let total: Int64?

    public static func parse(_ value: String) -> ContentRange? {
        let trimmed = value.trimmedSpaces()
        guard trimmed.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = trimmed.dropFirst(6).trimmedSpaces()
        let halves = spec.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }
        let bounds = halves[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]),
              first >= 0, last >= first else { return nil }
        var total: Int64?
        if halves[1] != "*" {
            guard let t = Int64(halves[1]), t > last else { return nil }
            total = t
        }
        return ContentRange(first: first, last: last, total: total)
    }
}
