// Receive limits, public side: the session's shared limit and each task's own, both changeable while bytes flow.
import Synchronization

extension Session {
    /// Changes the whole session's receive limit (bytes per second; nil or 0: none) for the transfers running now
    /// and those that start later; they share it fairly, and a task's own lower limit still holds.
    public func setMaximumBytesPerSecond(_ limit: Int64?) {
        loop.send(.rateLimitChanged(nil, sessionLimit: limit.flatMap { $0 > 0 ? $0 : nil }))
    }

    /// The task's transfer's receive limit as the loop holds it now, answered on the transfer thread; nil when the
    /// task has none or is not running (for tests and diagnostics: the share is recomputed twice a second).
    func appliedRateLimit(of task: SessionTask, _ answer: @escaping @Sendable (RateGovernor.Limit?) -> Void) {
        if !loop.send(.appliedRateLimit(task.taskIdentifier, answer)) { answer(nil) }
    }
}

extension SessionTask {
    /// This task's own receive limit in bytes per second; nil (or 0) for none but the session's. It may be set at
    /// any time from any thread: a running transfer takes the new limit at the transfer loop's next turn.
    public var maximumBytesPerSecond: Int64? {
        get {
            let limit = receiveLimit.load(ordering: .relaxed)
            return limit > 0 ? limit : nil
        }
        set {
            receiveLimit.store(min(max(0, newValue ?? 0), RateGovernor.ceiling), ordering: .relaxed)  // past it: no limit
            session.loop.send(.rateLimitChanged(taskIdentifier, sessionLimit: nil))
        }
    }
}

extension Session {
    /// The session's receive budget as the loop counts it now, and the tasks it holds back from starting, answered
    /// on the transfer thread (for tests and diagnostics); nil without a session limit.
    func receiveBudget(_ answer: @escaping @Sendable (ReceiveBudget?, [Int]) -> Void) {
        if !loop.send(.receiveBudget(answer)) { answer(nil, []) }
    }
}
