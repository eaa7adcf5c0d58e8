// Commands run when a task ends (`--on-complete`, `--on-error`) and when the whole queue has (`--on-queue-empty`),
// with the task's facts in SLUICE_* environment variables: text from a server reaches the command only there, never
// in its command line. Each runs through /bin/sh in a process group of its own, off the transfer path; one that
// outlives its timeout is ended (SIGTERM, then SIGKILL). What happened is said through `report`.
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import SluiceEngine
import SluiceLock
import SluiceViewModel

/// What a hook is told about the task that ended.
public struct EndedTask: Sendable, Equatable {
    public enum Outcome: String, Sendable { case finished, failed, cancelled }

    public let id: Int
    public let url: String
    /// Where the download was saved; nil for a data task or a download that saved nothing.
    public let file: String?
    public let outcome: Outcome
    public let httpStatus: Int?
    public let bytes: Int64
    public let error: String?
    /// A state word instead of the outcome, for a row that has not ended (`!`).
    var status: String?

    public init(id: Int, url: String, file: String?, outcome: Outcome, httpStatus: Int?, bytes: Int64, error: String?) {
        (self.id, self.url, self.file, self.outcome, self.httpStatus, self.bytes, self.error) = (id, url, file, outcome, httpStatus, bytes, error)
    }

    /// A row's facts as they stand (the UI's `!`): SLUICE_STATUS is the row's state word then.
    public init(_ row: TaskRow) {
        let outcome: Outcome = switch row.outcome {
        case .finished?: .finished
        case .cancelled?: .cancelled
        default: .failed
        }
        var error: String?
        if case .failed(let failure)? = row.outcome { error = failure.message }
        self.init(id: row.id, url: row.url, file: row.savedPath, outcome: outcome, httpStatus: row.status, bytes: row.bytes, error: error)
        status = row.outcome == nil ? row.stateWord : nil
    }

    /// The variables a hook gets (besides the process's own).
    public var environment: [String: String] {
        var result = ["SLUICE_TASK_ID": String(id), "SLUICE_URL": url, "SLUICE_STATUS": status ?? outcome.rawValue, "SLUICE_BYTES": String(bytes),
                      "SLUICE_FILE": file ?? "", "SLUICE_ERROR": error ?? ""]
        if let httpStatus { result["SLUICE_HTTP_STATUS"] = String(httpStatus) }
        return result
    }
}

public struct TaskHooks: Sendable, Equatable {
    public var onComplete: String?
    public var onError: String?
    public var onQueueEmpty: String?
    /// A desktop notification (notify-send) when a task ends; a bell on the terminal where there is none.
    public var notify = false
    /// How long a hook may run before it is ended.
    public var timeout: Double = 60

    public init(onComplete: String? = nil, onError: String? = nil, onQueueEmpty: String? = nil, notify: Bool = false, timeout: Double = 60) {
        (self.onComplete, self.onError, self.onQueueEmpty, self.notify, self.timeout) = (onComplete, onError, onQueueEmpty, notify, timeout)
    }

    public var isEmpty: Bool { onComplete == nil && onError == nil && onQueueEmpty == nil && !notify }
}

/// Runs the hooks; `report(id, text)` hears how each went (id nil for the queue's hook), on a queue of its own.
public final class HookRunner: Sendable {
    public let hooks: TaskHooks
    private let report: @Sendable (Int?, String) -> Void
    private let ring: @Sendable () -> Void
    private let queue = DispatchQueue(label: "sluice.hooks", attributes: .concurrent)
    /// Hooks still running, so that a process about to exit can let them finish.
    private let running = DispatchGroup()
    /// Their process groups, so that a user who will not wait for them can end them.
    private let groups = Locked<Set<pid_t>>([])

    /// `ring`: the terminal's bell, for `notify` where notify-send is missing.
    public init(_ hooks: TaskHooks, ring: @escaping @Sendable () -> Void = {}, report: @escaping @Sendable (Int?, String) -> Void) {
        self.hooks = hooks
        self.report = report
        self.ring = ring
    }

    public func ended(_ task: EndedTask) {
        let command = task.outcome == .finished ? hooks.onComplete : hooks.onError
        if let command { run(command, name: task.outcome == .finished ? "on-complete" : "on-error", environment: task.environment, id: task.id) }
        if hooks.notify { notify(task) }
    }

    /// Runs `command` once for `task` (the UI's `!`); `report` hears how it went.
    public static func run(_ command: String, for task: EndedTask, timeout: Double = 60, report: @escaping @Sendable (String) -> Void) {
        HookRunner(TaskHooks(timeout: timeout)) { _, text in report(text) }.run(command, name: "task-command", environment: task.environment, id: task.id)
    }

    public func queueEmptied() {
        if let command = hooks.onQueueEmpty { run(command, name: "on-queue-empty", environment: [:], id: nil) }
    }

    private func notify(_ task: EndedTask) {
        guard let sender = FileOpener.find("notify-send", environment: FileOpener.currentEnvironment()) else { return ring() }
        let name = task.file.map { String($0.split(separator: "/").last ?? "") } ?? task.url
        // The name comes from a server: an argument of its own, cleaned, never a shell word.
        let words = [sender, "--app-name=sluice", "sluice: \(task.outcome.rawValue)", Sanitized.text(name)]
        queue.async { _ = Self.spawn(words, environment: [:]).map { Self.wait($0, seconds: 10) } }
    }

    private func run(_ command: String, name: String, environment: [String: String], id: Int?) {
        let timeout = hooks.timeout
        let report = self.report
        queue.async(group: running) {
            guard let pid = Self.spawn(["/bin/sh", "-c", command], environment: environment) else {
                return report(id, "\(name) hook could not start")
            }
            self.groups.withLock { _ = $0.insert(pid) }
            let ending = Self.wait(pid, seconds: timeout)
            self.groups.withLock { _ = $0.remove(pid) }
            switch ending {
            case .exited(0): report(id, "\(name) hook ran")
            case .exited(let code): report(id, "\(name) hook failed: exit \(code)")
            case .signalled(let signal): report(id, "\(name) hook ended by signal \(signal)")
            case .timedOut: report(id, "\(name) hook ran over \(Int(timeout)) s and was stopped")
            }
        }
    }

    /// Waits until every hook started so far has ended (each is bounded by the timeout): false when `seconds` passed
    /// first, or `giveUp` (asked every 20 ms) said to stop waiting. `announce` is told once, when a hook is still
    /// running half a second in, so that a wait the user sees is a wait the user is told about.
    @discardableResult
    public func waitForHooks(seconds: Double, unless giveUp: () -> Bool = { false }, announce: () -> Void = {}) -> Bool {
        let start = DispatchTime.now()
        let deadline = start + seconds
        var announced = false
        while running.wait(timeout: min(deadline, .now() + .milliseconds(20))) == .timedOut {
            if giveUp() || DispatchTime.now() >= deadline { return false }
            if !announced, DispatchTime.now() >= start + .milliseconds(500) {
                announced = true
                announce()
            }
        }
        return true
    }

    /// Ends the hooks still running, with their children (SIGTERM to each one's process group).
    public func stopHooks() {
        for group in groups.withLock({ $0 }) { kill(-group, SIGTERM) }
    }

    enum Ending: Equatable { case exited(Int32), signalled(Int32), timedOut }

    /// Its process group's leader, with stdin, stdout and stderr on /dev/null and no other descriptor of sluice's.
    static func spawn(_ words: [String], environment: [String: String]) -> pid_t? {
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        // Nothing else of sluice's: a daemon's client connection held open by a hook would never see its reply end.
        SpawnedDescriptors.closeInherited(&actions)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawnattr_setpgroup(&attributes, 0)
        let signals = SpawnedSignals.reset(&attributes)
        posix_spawnattr_setflags(&attributes, Int16(Int32(POSIX_SPAWN_SETPGROUP) | signals))
        var merged = FileOpener.currentEnvironment()
        for (name, value) in environment { merged[name] = value }
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = merged.map { strdup($0.key + "=" + $0.value) } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid = pid_t()
        return posix_spawn(&pid, words[0], &actions, &attributes, argv, envp) == 0 ? pid : nil
    }

    /// Waits for the child (a poll every 20 ms, only while a hook runs); past `seconds`, its group gets SIGTERM,
    /// then SIGKILL a second later.
    static func wait(_ pid: pid_t, seconds: Double) -> Ending {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        var status: Int32 = 0
        while DispatchTime.now().uptimeNanoseconds < deadline {
            if waitpid(pid, &status, WNOHANG) == pid { return ending(status) }
            usleep(20_000)
        }
        kill(-pid, SIGTERM)
        for _ in 0..<50 {
            if waitpid(pid, &status, WNOHANG) == pid { return .timedOut }
            usleep(20_000)
        }
        kill(-pid, SIGKILL)
        _ = waitpid(pid, &status, 0)
        return .timedOut
    }

    private static func ending(_ status: Int32) -> Ending {
        (status & 0x7f) == 0 ? .exited((status >> 8) & 0xff) : .signalled(status & 0x7f)
    }
}
