// A task's public life: the four states of URLSessionTask and the pure transitions between them.

public enum TaskState: String, Sendable {
    case running, suspended, canceling, completed
}

/// The public lifecycle of one task. Every event returns what the engine must do; nothing here touches a socket.
struct TaskLifecycle: Equatable {
    enum Action: Equatable {
        case none
        /// First resume: create the transfer.
        case start
        /// Pause the bytes of a started transfer.
        case pause
        /// Continue a paused transfer.
        case unpause
        /// Tear the transfer down and report cancellation.
        case cancel
        /// The transfer ended while the task was suspended: report that end now.
        case reportEnd
    }

    /// What to do with a transfer's end.
    enum Ending: Equatable {
        case report
        /// The task is suspended: the end is kept until `resume()` or `cancel()`, so that no byte or completion
        /// reaches a suspended delegate.
        case waitForResume
        /// Already completed (or already waiting): nothing more to report.
        case alreadyEnded
    }

    private(set) var state: TaskState = .suspended
    /// Whether the transfer was ever started; a suspended task that never ran starts on resume.
    private(set) var started = false
    /// The transfer ended while the task was suspended; its report waits for resume or cancel.
    private(set) var endPending = false

    init() {}

    /// A task that takes over a transfer already under way (a data task's transfer becoming a download).
    init(continuing state: TaskState) {
        self.state = state == .suspended ? .suspended : .running
        started = true
    }

    mutating func resume() -> Action {
        guard state == .suspended else { return .none }  // URLSession ignores resume in other states
        if endPending { return reportPendingEnd() }
        state = .running
        if started { return .unpause }
        started = true
        return .start
    }

    mutating func suspend() -> Action {
        guard state == .running else { return .none }
        state = .suspended
        return .pause
    }

    mutating func cancel() -> Action {
        switch state {
        case .suspended where endPending:
            return reportPendingEnd()
        case .running, .suspended:
            state = .canceling
            return .cancel
        case .canceling, .completed:
            return .none
        }
    }

    /// The transfer has ended (finished, failed or cancelled). Returns false if it had already completed.
    /// (A conversion's hand-over: the data task ends whatever its state, its transfer goes on.)
    mutating func complete() -> Bool {
        guard state != .completed else { return false }
        state = .completed
        return true
    }

    /// The transfer has ended: report it, or keep it while the task is suspended.
    mutating func end() -> Ending {
        switch state {
        case .completed: return .alreadyEnded
        case .suspended where started:
            if endPending { return .alreadyEnded }
            endPending = true
            return .waitForResume
        default:
            state = .completed
            return .report
        }
    }

    private mutating func reportPendingEnd() -> Action {
        endPending = false
        state = .completed
        return .reportEnd
    }
}
