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
    }

    private(set) var state: TaskState = .suspended
    /// Whether the transfer was ever started; a suspended task that never ran starts on resume.
    private(set) var started = false

    init() {}

    /// A task that takes over a transfer already under way (a data task's transfer becoming a download).
    init(continuing state: TaskState) {
        self.state = state == .suspended ? .suspended : .running
        started = true
    }

    mutating func resume() -> Action {
        guard state == .suspended else { return .none }  // URLSession ignores resume in other states
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
        case .running, .suspended:
            state = .canceling
            return .cancel
        case .canceling, .completed:
            return .none
        }
    }

    /// The transfer has ended (finished, failed or cancelled). Returns false if it had already completed.
    mutating func complete() -> Bool {
        guard state != .completed else { return false }
        state = .completed
        return true
    }
}
