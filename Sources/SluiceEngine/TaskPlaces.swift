// The session's places for running tasks (`SessionConfiguration.maximumConcurrentTasks`): a task resumed while
// every place is taken waits here and starts, highest priority first and then in the order resumed, the moment
// a running task ends. Loop thread only.

/// How many places are taken, and the tasks waiting for one in start order. No dictionary: this runs twice a
/// task, and the per-origin list it was first built on (ConnectionWaitList, keyed by String) cost each task
/// about 1,600 instructions of hashing.
struct TaskPlaces {
    private struct Waiting {
        let task: SessionTask
        let priority: Float
        let order: Int
    }

    /// 0: no limit, nothing ever waits.
    let limit: Int
    private(set) var taken = 0
    /// From `head` on: highest priority first, arrival order within one priority.
    private var waiting: [Waiting] = []
    private var head = 0
    private var arrivals = 0

    init(limit: Int) { self.limit = max(0, limit) }

    var isEmpty: Bool { head == waiting.count }

    /// True when `task` may start now (it then holds a place until `release`); false when it waits. The priority is
    /// read now: changing it later does not move a waiting task.
    mutating func admit(_ task: SessionTask) -> Bool {
        if limit == 0 || taken < limit {
            taken += 1
            return true
        }
        arrivals += 1
        let entry = Waiting(task: task, priority: task.priority, order: arrivals)
        // After every waiting entry of the same or a higher priority: a binary search, as thousands may wait, and
        // an append when all share one priority.
        var low = head
        var high = waiting.count
        while low < high {
            let mid = (low + high) / 2
            if waiting[mid].priority >= entry.priority { low = mid + 1 } else { high = mid }
        }
        waiting.insert(entry, at: low)
        return false
    }

    /// A place came free: the task that takes it (it now holds the place), or nil when none waits.
    mutating func release() -> SessionTask? {
        guard head < waiting.count else {
            taken -= 1
            return nil
        }
        let next = waiting[head].task
        head += 1
        if head == waiting.count {
            waiting.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1024 && head * 2 >= waiting.count {
            waiting.removeFirst(head)  // the started ones, once they are half the array
            head = 0
        }
        return next
    }

    /// A waiting task leaves (cancelled) without having held a place; nil when it was not waiting.
    mutating func remove(_ id: Int) -> SessionTask? {
        guard let index = waiting[head...].firstIndex(where: { $0.task.taskIdentifier == id }) else { return nil }
        return waiting.remove(at: index).task
    }

    func isWaiting(_ id: Int) -> Bool { waiting[head...].contains { $0.task.taskIdentifier == id } }
}
