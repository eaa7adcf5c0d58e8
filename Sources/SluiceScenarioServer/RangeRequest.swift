// Parses a single-range `Range: bytes=...` header against a body length (RFC 9110 section 14).

enum RangeRequest: Equatable {
    case whole(Int64)
    case part(Int64, Int64)  // inclusive bounds
    case unsatisfiable

    static func parse(_ value: String, total: Int64) -> RangeRequest {
        guard value.hasPrefix("bytes="), !value.contains(",") else { return .whole(total) }
        let spec = value.dropFirst(6).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard spec.count == 2 else { return .whole(total) }
        let first = Int64(spec[0]), last = Int64(spec[1])
        switch (first, last) {
        case let (lower?, upper):
            guard lower < total else { return .unsatisfiable }
            return .part(lower, min(upper ?? total - 1, total - 1))
        case let (nil, suffix?):
            guard suffix > 0, total > 0 else { return .unsatisfiable }
            return .part(max(0, total - suffix), total - 1)
        default:
            return .whole(total)
        }
    }
}
