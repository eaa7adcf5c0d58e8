// A task's public life: the four states of URLSessionTask and the pure transitions between them.

public enum TaskState: String, Sendable, Codable {
    case running, suspended, canceling, completed
}

/// The public lifecycle of one task. Every event returns what the engine must do; nothing here touches a socket.
///
/// A transfer's end travels from the loop to the delegate queue, and the task may be suspended on the way (a
/// delegate that suspends in `didReceive data` while libcurl already has the rest). The task stays `running` or
/// `suspended` until its last calls are made, and a suspended task's end waits for `resume()` or `cancel()`:
/// no byte and no completion reaches a suspended delegate.
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
        /// The transfer ended while the task was suspended and nothing was delivered yet: deliver the end now.
        case deliverKeptEnd
        /// The end reached the delegate queue while the task was suspended: make its held calls now.
        case releaseHeldEnd
    }

    /// What to do with a transfer's end.
    enum Ending: Equatable {
        case report
        /// The task is suspended: the end is kept until `resume()` or `cancel()`.
        case waitForResume
        /// Already ended: nothing more to report.
        case alreadyEnded
    }

    /// Where the end of the transfer stands.
    enum EndState: Equatable {
        case none
        /// Ended while suspended; nothing delivered yet.
        case kept
        /// On its way to the delegate queue.
        case delivering
        /// Reached the delegate queue while suspended; its calls wait.
        case held
    }

    private(set) var state: TaskState = .suspended
    /// Whether the transfer was ever started; a suspended task that never ran starts on resume.
    private(set) var started = false
    private(set) var endState = EndState.none

    init() {}

    /// A task that takes over a transfer already under way (a data task's transfer becoming a download).
    init(continuing state: TaskState) {
        self.state = state == .suspended ? .suspended : .running
        started = true
    }

    mutating func resume() -> Action {
        guard state == .suspended else { return .none }  // URLSession ignores resume in other states
        switch endState {
        case .kept:
            state = .running
            endState = .delivering
            return .deliverKeptEnd
        case .held:
            state = .running
            endState = .delivering
            return .releaseHeldEnd
        case .none, .delivering:
            state = .running
            if started { return .unpause }
            started = true
            return .start
        }
    }

    mutating func suspend() -> Action {
        guard state == .running else { return .none }
        state = .suspended
        return .pause
    }

    mutating func cancel() -> Action {
        switch (state, endState) {
        case (.suspended, .kept), (.suspended, .held):
            return resume()  // the transfer has ended: its end, not a cancellation, is what happened
        case (_, .delivering):
            return .none  // the completion is on its way
        case (.running, _), (.suspended, _):
            state = .canceling
            return .cancel
        case (.canceling, _), (.completed, _):
            return .none
        }
    }

    /// A conversion's hand-over: the data task ends whatever its state, its transfer goes on. Returns false if
    /// it had already completed.
    mutating func complete() -> Bool {
        guard state != .completed else { return false }
        state = .completed
        return true
    }

    /// The loop ended the transfer: report it, or keep it while the task is suspended.
    mutating func end() -> Ending {
        guard state != .completed, endState == .none else { return .alreadyEnded }
        if state == .suspended && started {
            endState = .kept
            return .waitForResume
        }
        endState = .delivering
        return .report
    }

    /// The end reached the delegate queue: true when its calls may be made now (the task is then completed),
    /// false when the task was suspended on the way and they must wait.
    mutating func arriveAtDelegate() -> Bool {
        if state == .suspended {
            endState = .held
            return false
        }
        state = .completed
        endState = .none
        return true
    }
}
