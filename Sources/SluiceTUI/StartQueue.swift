// Which of the UI's tasks run now and which wait their turn: at most `limit` at once (and `perHost` per server),
// the rest queued in an order the user can change, as aria2's -j and --max-connection-per-server do. Ten thousand
// tasks resumed at once cost the engine one transfer each (handle, buffers) before a connection was free to serve
// any of them.

/// A pure value: each event returns the tasks the app must resume now.
struct StartQueue: Sendable {
    private(set) var limit: Int
    /// At most this many running tasks per host (tasks without a host are not counted), unless the host has a
    /// limit of its own (a config file's `[hosts."..."] connections`).
    let perHost: Int
    private var hostLimits: [String: Int] = [:]
    private(set) var running: Set<Int> = []
    /// In the order they start; entries no longer in `waitingSet` are skipped (started by hand, cancelled).
    private var waiting: [Int] = []
    private var next = 0
    private var waitingSet: Set<Int> = []
    private var hosts: [Int: String] = [:]
    private var runningPerHost: [String: Int] = [:]

    init(limit: Int, perHost: Int = .max) {
        self.limit = max(1, limit)
        self.perHost = max(1, perHost)
    }

    func isWaiting(_ id: Int) -> Bool { waitingSet.contains(id) }

    var waitingCount: Int { waitingSet.count }

    /// Nothing runs and nothing waits.
    var isIdle: Bool { running.isEmpty && waitingSet.isEmpty }

    /// The ids waiting, first to start first.
    var queued: [Int] { waiting[next...].filter { waitingSet.contains($0) } }

    /// A new task: true when it may start now, false when it waits. `hostLimit`: its host's own limit, which
    /// replaces `perHost` for every task of that host.
    mutating func add(_ id: Int, host: String? = nil, hostLimit: Int? = nil) -> Bool {
        if let host {
            hosts[id] = host
            if let hostLimit { hostLimits[host] = max(1, hostLimit) }
        }
        waiting.append(id)
        waitingSet.insert(id)
        // Everything queued before it was already passed over for want of room, so only this one can start.
        return fill().contains(id)
    }

    /// Room for `count` more tasks (at least twice the room there was: an array's reserve is exact).
    mutating func reserve(_ count: Int) {
        if waiting.count + count > waiting.capacity { waiting.reserveCapacity(Swift.max(waiting.count + count, 2 * waiting.capacity)) }
        waitingSet.reserveCapacity(waitingSet.count + count)
    }

    /// The user resumed a waiting task: it runs now, past the limits if need be (a key beats the queue).
    mutating func startedByUser(_ id: Int) {
        guard waitingSet.remove(id) != nil || !running.contains(id) else { return }
        start(id)
    }

    /// The user suspended a running task: its slot goes to the next one waiting.
    mutating func suspendedByUser(_ id: Int) -> [Int] {
        guard running.contains(id) else { return [] }
        release(id)
        return fill()
    }

    /// A data task became a download task: the same transfer, the same slot.
    mutating func handedOver(from old: Int, to new: Int) {
        guard running.contains(old) else { return }
        let host = hosts[old]
        release(old)
        if let host { hosts[new] = host }
        start(new)
    }

    /// A new limit, at once: a higher one starts tasks; a lower one lets running tasks finish and starts none.
    mutating func setLimit(_ newLimit: Int) -> [Int] {
        limit = max(1, newLimit)
        return fill()
    }

    /// Moves a waiting task `step` places towards the front (negative: towards the back); false when it is not
    /// waiting or is already at that end.
    mutating func move(_ id: Int, by step: Int) -> Bool {
        var order = queued
        guard let from = order.firstIndex(of: id) else { return false }
        let to = min(order.count - 1, max(0, from - step))
        guard to != from else { return false }
        order.remove(at: from)
        order.insert(id, at: to)
        waiting = order
        next = 0
        return true
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
        if running.contains(id) { release(id) }
        hosts[id] = nil
        return fill()
    }

    // MARK: Private

    private func hostHasRoom(_ id: Int) -> Bool {
        guard let host = hosts[id] else { return true }
        return runningPerHost[host, default: 0] < hostLimits[host] ?? perHost
    }

    private mutating func start(_ id: Int) {
        running.insert(id)
        if let host = hosts[id] { runningPerHost[host, default: 0] += 1 }
    }

    private mutating func release(_ id: Int) {
        running.remove(id)
        if let host = hosts[id] {
            let left = runningPerHost[host, default: 1] - 1
            runningPerHost[host] = left > 0 ? left : nil
        }
    }

    /// Starts waiting tasks, first first, while there is room; a task whose host is full is passed over, not
    /// dropped.
    private mutating func fill() -> [Int] {
        var starting: [Int] = []
        var i = next
        while running.count < limit, i < waiting.count {
            let candidate = waiting[i]
            i += 1
            guard waitingSet.contains(candidate) else {
                if i - 1 == next { next = i }
                continue
            }
            guard hostHasRoom(candidate) else { continue }
            waitingSet.remove(candidate)
            if i - 1 == next { next = i }
            start(candidate)
            starting.append(candidate)
        }
        // Skip what is no longer waiting at the front, and let go of the array once it is used up.
        while next < waiting.count, !waitingSet.contains(waiting[next]) { next += 1 }
        if next == waiting.count {
            waiting.removeAll(keepingCapacity: true)
            next = 0
        }
        return starting
    }
}
