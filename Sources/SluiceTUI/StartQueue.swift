// Which of the UI's tasks run now and which wait their turn: at most `limit` at once, the rest in the order they
// were added, as `sluice get -j` does. Ten thousand tasks resumed at once cost the engine one transfer each
// (handle, buffers) before a connection was free to serve any of them.

/// A pure value: each event returns the tasks the app must resume now.
struct StartQueue: Sendable {
    let limit: Int
    private(set) var running: Set<Int> = []
    private var waiting: [Int] = []
    private var next = 0
    /// Ids still in `waiting` (a task started by hand or cancelled leaves it without a search).
    private var waitingSet: Set<Int> = []

    init(limit: Int) { self.limit = max(1, limit) }

    func isWaiting(_ id: Int) -> Bool { waitingSet.contains(id) }

    var waitingCount: Int { waitingSet.count }

    /// A new task: true when it may start now, false when it waits.
    mutating func add(_ id: Int) -> Bool {
        if running.count < limit && waitingSet.isEmpty {
            running.insert(id)
            return true
        }
        waiting.append(id)
        waitingSet.insert(id)
        return false
    }

    /// The user resumed a waiting task: it runs now, past the limit if need be (a key beats the queue).
    mutating func startedByUser(_ id: Int) {
        guard waitingSet.remove(id) != nil else { return }
        running.insert(id)
    }

    /// A data task became a download task: the same transfer, the same slot.
    mutating func handedOver(from old: Int, to new: Int) {
        guard running.remove(old) != nil else { return }
        running.insert(new)
    }

    /// Nothing more starts (on quit: cancelling a running task must not start a waiting one).
    mutating func stopStarting() {
        waiting.removeAll()
        waitingSet.removeAll()
        next = 0
    }

    /// A task completed (a waiting one too, when it was cancelled): the tasks to start in its place.
    mutating func finished(_ id: Int) -> [Int] {
        waitingSet.remove(id)
        running.remove(id)
        var starting: [Int] = []
        while running.count < limit, next < waiting.count {
            let candidate = waiting[next]
            next += 1
            guard waitingSet.remove(candidate) != nil else { continue }
            running.insert(candidate)
            starting.append(candidate)
        }
        if next == waiting.count {
            waiting.removeAll(keepingCapacity: true)
            next = 0
        }
        return starting
    }
}
