// When a download's resume state goes to disk: at most a second behind the bytes it names, so that a kill -9 loses
// at most the last second. One rule for the UI's downloads, `sluice get -o` and `get --output-dir`.

/// A download's checkpoint clock, owned by whoever sees its bytes arrive (a delegate, on its queue).
public struct CheckpointClock: Sendable {
    /// A checkpoint at least this often while bytes arrive.
    public static let interval: UInt64 = 1_000_000_000

    /// Whether the first bytes are checkpointed at once. A list of downloads waits a second instead: one that ends
    /// within it (most small files) never pays for the checkpoint's two fsyncs, and a rerun refetches at most that
    /// second. One large `-o` download checkpoints its first bytes.
    public let waitsAfterFirstBytes: Bool
    /// When the last checkpoint was taken, or the first bytes came; 0 before either.
    public private(set) var last: UInt64 = 0

    public init(waitsAfterFirstBytes: Bool) {
        self.waitsAfterFirstBytes = waitsAfterFirstBytes
    }

    /// Bytes arrived at `now` (uptime nanoseconds): true when a checkpoint is due now, which is then counted as
    /// taken.
    public mutating func bytesArrived(now: UInt64) -> Bool {
        if last == 0 && waitsAfterFirstBytes {
            last = now
            return false
        }
        guard isDue(now: now) else { return false }
        last = now
        return true
    }

    /// A second has passed since the last checkpoint (or since the first bytes, when they wait), or none was
    /// taken yet and the first bytes do not wait.
    public func isDue(now: UInt64) -> Bool {
        last == 0 ? !waitsAfterFirstBytes : now &- last >= Self.interval
    }

    /// A checkpoint was taken at `now` whatever the clock said (one forced by a stall's sweep).
    public mutating func taken(now: UInt64) { last = now }

    /// A new attempt: its first bytes start the clock again.
    public mutating func restart() { last = 0 }
}
