// The whole list at a glance, for the title line: how many tasks have ended, and when the rest should be done. A
// task whose size is not known yet (queued, not started) counts as the average size of those known, so a list of
// 50,000 files gets an estimate long before each has answered; one that runs without a length (a stream) means
// there is no estimate. A task the user suspended is not part of it (it ends when they say), and the estimate is
// never shorter than a running task's own: the title said "all in 3m14s" for a suspended 187 MB, and "all in 8s"
// beside a row's 15s (found by a tester).
public struct ListProgress: Equatable, Sendable {
    public let ended: Int
    public let total: Int
    /// Bytes still to come, estimated; nil while no size is known.
    public let remainingBytes: Double?
    /// Seconds until all are done at the current rate; nil while nothing moves or nothing is known.
    public let eta: Double?

    public static func of(_ model: Model) -> ListProgress {
        var ended = 0, unknown = 0, endless = false
        var knownSize = 0.0, knownCount = 0, remaining = 0.0, rate = 0.0, longest = 0.0
        // By index, reading stored fields only: a row whose method is called is copied whole first (472 bytes and a
        // retain per string and array in it), which at every frame for every row of a long list showed in profiles.
        // Only the running rows, a few, are asked for their rate.
        let rows = model.rows
        for i in rows.indices where rows[i].state == .running {
            let own = rows[i].bytesPerSecond(now: model.now)
            rate += own ?? 0
            longest = max(longest, rows[i].secondsLeft(at: own) ?? 0)
        }
        for i in rows.indices {
            if rows[i].state == .completed {
                ended += 1
                if rows[i].bytes > 0 {
                    knownSize += Double(rows[i].bytes)
                    knownCount += 1
                }
                continue
            }
            // `TaskRow.isHeldByUser`, read field by field: this loop sees every row at every frame.
            let held = rows[i].state == .suspended && rows[i].hasStarted && rows[i].retry == nil
            if rows[i].expected > 0 {
                knownSize += Double(rows[i].expected)
                knownCount += 1
                if !held { remaining += Double(max(0, rows[i].expected - rows[i].bytes)) }
            } else if held {
                continue
            } else {
                unknown += 1
                // A running transfer that never said its length (a stream) gives no end to estimate.
                if rows[i].hasStarted { endless = true }
            }
        }
        guard knownCount > 0, !endless else { return ListProgress(ended: ended, total: model.rows.count, remainingBytes: nil, eta: nil) }
        let estimate = remaining + Double(unknown) * knownSize / Double(knownCount)
        return ListProgress(ended: ended, total: model.rows.count, remainingBytes: estimate,
                            eta: rate > 0 && ended < model.rows.count ? max(estimate / rate, longest) : nil)
    }
}
