// The whole list at a glance, for the title line: how many tasks have ended, and when the rest should be done. A
// task whose size is not known yet (queued, not started) counts as the average size of those known, so a list of
// 50,000 files gets an estimate long before each has answered; one that runs without a length (a stream) means
// there is no estimate.
public struct ListProgress: Equatable, Sendable {
    public let ended: Int
    public let total: Int
    /// Bytes still to come, estimated; nil while no size is known.
    public let remainingBytes: Double?
    /// Seconds until all are done at the current rate; nil while nothing moves or nothing is known.
    public let eta: Double?

    public static func of(_ model: Model) -> ListProgress {
        var ended = 0, unknown = 0, endless = false
        var knownSize = 0.0, knownCount = 0, remaining = 0.0, rate = 0.0
        for row in model.rows {
            if row.isFinished {
                ended += 1
                continue
            }
            if row.state == .running { rate += row.bytesPerSecond(now: model.now) ?? 0 }
            if row.expected > 0 {
                knownSize += Double(row.expected)
                knownCount += 1
                remaining += Double(max(0, row.expected - row.bytes))
            } else {
                unknown += 1
                // A running transfer that never said its length (a stream) gives no end to estimate.
                if row.hasStarted { endless = true }
            }
        }
        for row in model.rows where row.isFinished && row.bytes > 0 {
            knownSize += Double(row.bytes)
            knownCount += 1
        }
        guard knownCount > 0, !endless else { return ListProgress(ended: ended, total: model.rows.count, remainingBytes: nil, eta: nil) }
        let estimate = remaining + Double(unknown) * knownSize / Double(knownCount)
        return ListProgress(ended: ended, total: model.rows.count, remainingBytes: estimate,
                            eta: rate > 0 && ended < model.rows.count ? estimate / rate : nil)
    }
}
