// Transfer rate over the last few seconds, from byte-count samples: steady enough to read, quick to follow.

public struct RateWindow: Equatable, Sendable {
    /// Samples older than this (nanoseconds) no longer count.
    public static let span: UInt64 = 5_000_000_000
    /// At most one sample per this interval, so a burst of chunk events costs nothing extra.
    static let spacing: UInt64 = 200_000_000

    private var samples: [(time: UInt64, bytes: Int64)] = []

    public init() {}

    public mutating func record(bytes: Int64, at time: UInt64) {
        if let last = samples.last, bytes < last.bytes { samples.removeAll() }  // the count started over: no negative rate
        if let last = samples.last, time &- last.time < Self.spacing {
            samples[samples.count - 1].bytes = bytes  // keep the newest count in the current slot
        } else {
            samples.append((time, bytes))
        }
        let cutoff = time > Self.span ? time - Self.span : 0
        // Keep the newest sample from before the window as its anchor: after a silence the rate reads 0, not unknown.
        if let keep = samples.firstIndex(where: { $0.time >= cutoff }), keep > 1 { samples.removeFirst(keep - 1) }
    }

    /// Bytes per second between the oldest sample in the window and `now` (nil before two samples).
    public func rate(now: UInt64) -> Double? {
        guard let first = samples.first, let last = samples.last, samples.count >= 2 else { return nil }
        let end = max(now, last.time)
        let seconds = Double(end &- first.time) / 1e9
        guard seconds > 0 else { return nil }
        return Double(last.bytes - first.bytes) / seconds
    }

    public static func == (a: RateWindow, b: RateWindow) -> Bool {
        a.samples.elementsEqual(b.samples) { $0.time == $1.time && $0.bytes == $1.bytes }
    }
}

/// As `[time, bytes]` pairs (tuples have no Codable of their own), so an attached UI reads the same rate.
extension RateWindow: Codable {
    public init(from decoder: any Decoder) throws {
        let pairs = try decoder.singleValueContainer().decode([[Int64]].self)
        self.init()
        for pair in pairs {
            guard pair.count == 2, pair[0] >= 0 else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "a sample is [time, bytes]"))
            }
            samples.append((UInt64(pair[0]), pair[1]))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(samples.map { [Int64(bitPattern: $0.time), $0.bytes] })
    }
}
