// A task's bytes per second over the last minute, one bucket a second: what a sparkline draws. Sampled on the
// clock's ticks, so a stalled transfer shows its silence as zeros.

public struct Throughput: Equatable, Sendable, Codable {
    /// Seconds kept.
    public static let span = 60
    /// Bytes received in each whole second, oldest first; the second under way is not in it yet.
    public private(set) var perSecond: [Int64] = []
    private var second: UInt64?
    private var bytesAtSecondStart: Int64 = 0

    public init() {}

    /// The task had `bytes` in all at `time` (nanoseconds): closes the seconds that have passed.
    public mutating func record(bytes: Int64, at time: UInt64) {
        let now = time / 1_000_000_000
        guard let current = second else {
            second = now
            bytesAtSecondStart = bytes
            return
        }
        guard now > current else { return }
        perSecond.append(max(0, bytes - bytesAtSecondStart))  // a restart from zero is no negative rate
        // Seconds with no sample at all were silent (a suspended task is not ticked).
        let silent = min(Int(now - current - 1), Self.span)
        if silent > 0 { perSecond += repeatElement(0, count: silent) }
        if perSecond.count > Self.span { perSecond.removeFirst(perSecond.count - Self.span) }
        second = now
        bytesAtSecondStart = bytes
    }

    /// The count starts again from `bytes` (a download over from zero, or resumed at an offset): the second under
    /// way counts what comes after, not the drop or the jump.
    public mutating func rebase(bytes: Int64) {
        if second != nil { bytesAtSecondStart = bytes }
    }

    public var peak: Int64 { perSecond.max() ?? 0 }

    /// The last `width` seconds as bars, scaled to the peak among them: eight heights, or ASCII.
    public func sparkline(width: Int, ascii: Bool = false) -> String {
        let shown = perSecond.suffix(max(0, width))
        let top = shown.max() ?? 0
        let levels: [Character] = ascii ? Array(" .:-=+*#") : Array(" ▁▂▃▄▅▆▇█")
        return String(shown.map { value -> Character in
            guard top > 0, value > 0 else { return levels[0] }
            let step = Int((Double(value) / Double(top) * Double(levels.count - 1)).rounded(.up))
            return levels[min(levels.count - 1, max(1, step))]
        })
    }
}
