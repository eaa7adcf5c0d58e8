// The flows the screen keeps, folded when something reads them: the sequence view, an export, a removal. The
// screen made every task's flow at every drain, about a tenth of its thread's work in a list of 2,000 downloads
// (issue 11), for a view most runs never open. The drained batches wait as they came (an array kept, no copy);
// past `limit` waiting events they are folded at once, so an endless stream's memory stays bounded.
public struct PendingFlows: Sendable {
    private var log = FlowLog()
    private var batches: [[ModelEvent]] = []
    private var waiting = 0
    /// Events kept unfolded at most (a few MiB); a view opened after that many folds them in one go.
    public static let limit = 1 << 16

    public init() {}

    /// A drain's events, in order, after every earlier one.
    public mutating func append(_ events: [ModelEvent]) {
        guard !events.isEmpty else { return }
        batches.append(events)
        waiting += events.count
        if waiting > Self.limit { fold() }
    }

    /// Every flow as the events so far make it.
    public mutating func current() -> FlowLog {
        fold()
        return log
    }

    /// A row the user removed: its flow goes (a later event of its task starts a new one, as in `FlowLog`).
    public mutating func forget(_ id: Int) {
        fold()
        log.forget(id)
    }

    /// Events not folded yet (for tests).
    var unfolded: Int { waiting }

    private mutating func fold() {
        guard waiting > 0 else { return }
        for batch in batches {
            for event in batch { log.apply(event) }
        }
        batches.removeAll(keepingCapacity: true)
        waiting = 0
    }
}
