// The session's places for running tasks (`SessionConfiguration.maximumConcurrentTasks`): a task resumed while
// every place is taken waits here and starts, highest priority first and then in the order resumed, the moment
// a running task ends. Loop thread only.

/// How many places are taken, and the tasks waiting for one. No dictionary: this runs twice a task, and the
/// per-origin list it was first built on (ConnectionWaitList, keyed by String) cost each task about 1,600
/// instructions of hashing.
struct TaskPlaces {
    /// 0: no limit, nothing ever waits.
    let limit: Int
    private(set) var taken = 0
    private var waiting = PriorityLine<SessionTask>()

    init(limit: Int) { self.limit = max(0, limit) }

    var isEmpty: Bool { waiting.isEmpty }

    /// True when `task` may start now (it then holds a place until `release`); false when it waits. The priority is
    /// read now: changing it later does not move a waiting task.
    mutating func admit(_ task: SessionTask) -> Bool {
        if limit == 0 || taken < limit {
            taken += 1
            return true
        }
        waiting.append(task, priority: task.priority)
        return false
    }

    /// A place came free: the task that takes it (it now holds the place), or nil when none waits.
    mutating func release() -> SessionTask? {
        if let next = waiting.popFirst() { return next }
        taken -= 1
        return nil
    }

    /// A waiting task leaves (cancelled) without having held a place; nil when it was not waiting.
    mutating func remove(_ id: Int) -> SessionTask? { waiting.remove { $0.taskIdentifier == id } }

    func isWaiting(_ id: Int) -> Bool { waiting.contains { $0.taskIdentifier == id } }
}
