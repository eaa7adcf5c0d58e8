// What a split download's connections are doing, for a UI to draw: each range, how far it has come, and whether
// a connection is on it now.

public struct DownloadSegment: Equatable, Sendable, Codable {
    /// The range's first byte and its end (exclusive).
    public let start: Int64
    public let end: Int64
    /// The next byte it expects: `next - start` bytes of it are on disk.
    public let next: Int64
    /// A connection is fetching it now (a finished or waiting range has none).
    public let isActive: Bool

    public init(start: Int64, end: Int64, next: Int64, isActive: Bool) {
        self.start = start
        self.end = end
        self.next = next
        self.isActive = isActive
    }
}

extension SegmentPlan {
    /// The plan as the public segments, in file order.
    var publicSegments: [DownloadSegment] {
        segments.sorted { $0.start < $1.start }.map {
            DownloadSegment(start: $0.start, end: $0.end, next: $0.next, isActive: $0.state == .active)
        }
    }
}
