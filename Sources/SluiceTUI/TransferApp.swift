// The UI's controller: makes the tasks, carries engine events into the model, keys into intents, and runs
// the draw loop at a few frames a second however many chunks arrive.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import SluiceEngine
import SluiceStore
import SluiceLock
import SluiceViewModel
import Synchronization

public struct AddError: Error, Equatable, Sendable {
    public let message: String
}

public final class TransferApp: Sendable {
    public let session: Session
    let delegate: TUIDelegate  // internal, not private: TransferApp+Headless adds to it
    let inbox = EventInbox()
    let outputDirectory: String
    let makeRequest: @Sendable (URL) -> Request
    /// Connections per download (`--split`): ranges at once when the server accepts them.
    let split: Int
    /// Keeps every row in the durable store, when there is one (`sluice URL...`; not the demo, not tests).
    let keeper: StoreKeeper?
    /// The hooks' runner, when any hook was given.
    private let hooks: HookRunner?
    /// The names this app's downloads claimed (the claims are made under its lock, one at a time).
    let claims = Locked(ClaimCounter())
    /// Per directory, its names read once while a list of downloads is added there (`addingDownloads`).
    let listings = Locked<[String: DirectoryNames]>([:])
    /// Downloads an earlier run left failed, by row: a refresh (`U`, `sluice refresh`) gives one a new URL.
    let revivable = Locked<[Int: StoredTask]>([:])
    /// Where answers that come later than their intent go (see `InterfaceDriver.onAnswer`).
    let answers = Locked<(@Sendable (String) -> Void)?>(nil)
    /// Rows of earlier runs that `restore` ended at once (found in place, or interrupted data tasks): history, not
    /// this run's work, so a plain run's tally leaves them out.
    let endedAtRestore = Locked<Set<Int>>([])
    /// Rows the restore brought back suspended: they stay so until the user resumes them (`r` in the UI), so a plain
    /// run, which has no keys, does not wait for them.
    let suspendedAtRestore = Locked<Set<Int>>([])
    /// Unfinished downloads the restore left to the other sluice fetching them (a second UI on the store, the daemon).
    let heldElsewhere = Locked(0)
    /// Set by a quit once every task had ended (see `tallyAtQuit`).
    let endedTally = Locked<PlainRun?>(nil)
    public var heldElsewhereAtRestore: Int { heldElsewhere.withLock { $0 } }

    /// Downloads are saved in `outputDirectory`, which also holds their partial files. At most `concurrency` tasks
    /// transfer at once (and as many connections per host, six at least), at most `perHost` to one server; the
    /// rest wait. `hostLimit` gives a host its own limit in place of `perHost`, which also caps its downloads'
    /// split (aria2's --max-connection-per-server, per host). `request` makes each URL's request (the command
    /// line's -H, -u, -b...), `configuration` the session's (proxy, TLS, cookies).
    public init(outputDirectory: String, concurrency: Int = 6, perHost: Int = .max,
                hostLimit: @escaping @Sendable (String) -> Int? = { _ in nil },
                configuration: SessionConfiguration = .default,
                request: @escaping @Sendable (URL) -> Request = { Request(url: $0) }, store: TaskStore? = nil,
                retries: RetryPolicies = RetryPolicies(), split: Int = 1, hooks: TaskHooks = TaskHooks(),
                ring: @escaping @Sendable () -> Void = {}) {
        self.outputDirectory = outputDirectory
        self.split = split
        makeRequest = request
        let keeper = store.map { StoreKeeper(store: $0) }
        self.keeper = keeper
        let inbox = self.inbox
        let post: @Sendable (ModelEvent) -> Void = { inbox.post($0) }
        let delegate = TUIDelegate(outputDirectory: outputDirectory, concurrency: concurrency, perHost: perHost,
                                   hostLimit: hostLimit, retries: retries, allocateRow: Self.allocator(keeper), post: post)
        self.delegate = delegate
        var configuration = configuration
        configuration.httpMaximumConnectionsPerHost = max(concurrency, configuration.httpMaximumConnectionsPerHost)
        configuration.downloadDirectory = outputDirectory
        let session = Session(configuration: configuration, delegate: delegate,
                              eventMonitor: { post(.engine(delegate.translate($0))) })
        self.session = session
        if let limit = configuration.maximumBytesPerSecond { inbox.post(.sessionRateLimit(limit)) }
        if let keeper { delegate.onCheckpoint.withLock { $0 = { keeper.checkpointed($0, $1) } } }
        // What a hook did goes on its row (the queue's own hook has none), where the UI and the daemon's log see it.
        let runner = hooks.isEmpty ? nil : HookRunner(hooks, ring: ring) { id, text in if let id { post(.note(id: id, text)) } }
        self.hooks = runner
        if let runner {
            delegate.onEnded.withLock { $0 = { task, queueEmpty in
                runner.ended(task)
                if queueEmpty { runner.queueEmptied() }
            } }
        }
        delegate.reclaim.withLock { $0 = { [weak self] managed in self?.placeAgain(managed) } }
        delegate.remake.withLock { $0 = { [weak session] managed, resumeData in
            session.map { Self.nextAttempt(of: managed, resumeData: resumeData, split: split, hostLimit: hostLimit, in: $0) }
        } }
    }

    /// A new engine task for a row's next attempt: a download continues its partial file when it can.
    private static func nextAttempt(of managed: ManagedTask, resumeData: Data?, split: Int,
                                    hostLimit: @Sendable (String) -> Int?, in session: Session) -> SessionTask {
        guard managed.kind == .download else { return session.dataTask(with: managed.request) }
        let task: DownloadTask
        if let resumeData, let resumed = try? session.downloadTask(with: managed.request, resumeData: resumeData) {
            task = resumed
        } else if let companions = managed.companions {
            task = session.downloadTask(with: managed.request, partialFile: companions.partialPath, exclusive: managed.createsPartial)
        } else {
            task = session.downloadTask(with: managed.request)
        }
        if managed.companions != nil { task.split = capped(max(task.split, split), managed.request.url, hostLimit) }
        return task
    }

    /// A download's connections, at most its host's limit.
    static func capped(_ split: Int, _ url: URL, _ hostLimit: @Sendable (String) -> Int?) -> Int {
        // One connection is never capped: its host is not asked for (FoundationEssentials parses it anew, each add).
        guard split > 1, let limit = url.host.flatMap(hostLimit) else { return split }
        return max(1, min(split, limit))
    }

    private static func allocator(_ keeper: StoreKeeper?) -> (@Sendable () -> Int?)? {
        guard let keeper else { return nil }
        return { keeper.allocate() }
    }

    /// Adds a task, started now or when its turn comes: a data task (with `asks`, its response waits for the
    /// user's r, c or d), or a download saved in the output directory under the URL's name, crash-safe beside it.
    /// The row's id, or why the URL cannot be added. `request`: this task's own (a client of the daemon sends its
    /// method, headers and body), else the app's.
    @discardableResult
    public func add(_ text: String, asks: Bool = false, kind: TaskKind = .data,
                    request custom: (@Sendable (URL) -> Request)? = nil) -> Result<Int, AddError> {
        guard let url = ParsedURL.parse(text) else { return .failure(AddError(message: "not a URL sluice can fetch: \(Sanitized.text(text))")) }
        if kind == .download { return addDownload(text, to: .directory(outputDirectory), request: custom) }
        let request = (custom ?? makeRequest)(url)
        let task = session.dataTask(with: request)
        let managed = ManagedTask(row: delegate.newRow(), task: task, request: request)
        let headers = task.currentRequest.headers.map { HeaderLine($0.name, $0.value) }
        keeper?.keep(managed.row, facts: RowFacts(method: request.method, headers: headers, kind: .data, companions: nil,
                                                   createdAt: StoreKeeper.wallClock()))
        inbox.post(.added(id: managed.row, url: url.absoluteString, kind: .data, requestHeaders: headers,
                          at: DispatchTime.now().uptimeNanoseconds))
        if delegate.track(managed, asks: asks) { task.resume() }
        return .success(managed.row)
    }

    func post(_ event: ModelEvent) { inbox.post(event) }

    /// Tracks a task the app made itself; true when it may start now.
    func track(_ managed: ManagedTask, queued: Bool) -> Bool { delegate.track(managed, asks: false, queued: queued) }

    /// Moves what the engine reported into `model` (and the store).
    func drain(into model: inout Model) -> Bool {
        let events = inbox.take()
        model.apply(contentsOf: events)
        keeper?.observe(events, model: model)
        return !events.isEmpty
    }

    /// The same, and into the flows the sequence view and the exports read.
    public func drain(into model: inout Model, flows: inout PendingFlows) -> Bool {
        let events = inbox.take()
        model.apply(contentsOf: events)
        flows.append(events)
        keeper?.observe(events, model: model)
        return !events.isEmpty
    }

    /// Writes the file `export` asks for into the output directory; a message saying where, or why not.
    public func perform(_ export: Export, model: Model, flows: FlowLog) -> String {
        ExportWriter.write(export, model: model, flows: flows, into: outputDirectory)
    }

    /// Carries out an intent; returns a message for the user when it cannot be done.
    public func perform(_ intent: Intent) -> String? {
        switch intent {
        case .add(let text, let kind):
            return AddedText.add(text) { added, url in
                let request: (@Sendable (URL) -> Request)? = added.paste == nil ? nil : { @Sendable url in added.request(for: url) ?? Request(url: url) }
                if case .failure(let problem) = add(url, kind: kind == .download ? .download : .data, request: request) { return problem.message }
                return nil
            }
        case .resume(let id):
            if delegate.answer(id, .allow) || delegate.retryNow(id) { return nil }
            let carrier = delegate.carrier(id)
            guard case .live(let task) = carrier else {
                return Self.unavailable(id, carrier) { _ in "#\(id) is \(TaskState.completed.rawValue), not suspended" }
            }
            if task.state != .suspended { return "#\(id) is \(task.state.rawValue), not suspended" }
            delegate.startedByUser(id)
            task.resume()
        case .suspend(let id):
            if delegate.isQueued(id) { return "#\(id) is queued, not running (r starts it now)" }
            let carrier = delegate.carrier(id)
            guard case .live(let task) = carrier else {
                return Self.unavailable(id, carrier) { _ in "#\(id) is \(TaskState.completed.rawValue), not running" }
            }
            if task.state != .running { return "#\(id) is \(task.state.rawValue), not running" }
            task.suspend()
            delegate.suspendedByUser(id)
        case .cancel(let id):
            if delegate.answer(id, .cancel) || delegate.cancelRetry(id) { return nil }
            let carrier = delegate.carrier(id)
            guard case .live(let task) = carrier else { return Self.unavailable(id, carrier) { _ in "#\(id) has already completed" } }
            if task.state == .completed { return "#\(id) has already completed" }
            task.cancel()
        case .convert(let id):
            let carrier = delegate.carrier(id)
            guard case .live(let task) = carrier else {
                return Self.unavailable(id, carrier) { $0 == .download ? "#\(id) is already a download" : "#\(id) has already completed" }
            }
            if delegate.isAwaitingAnswer(id), let dataTask = task as? DataTask {
                placeConversion(id, dataTask)
                if delegate.answer(id, .becomeDownload) { return nil }
            }
            guard let dataTask = task as? DataTask else { return "#\(id) is already a download" }
            if task.state == .completed { return "#\(id) has already completed" }
            if delegate.isQueued(id) { return "#\(id) is queued: nothing to convert yet (r starts it now)" }
            if dataTask.downloadPartialFile == nil { placeConversion(id, dataTask) }  // placed above if answered meanwhile
            dataTask.convertToDownload()
        case .move(let id, let step):
            if case .none = delegate.carrier(id) { return "no such task" }
            guard delegate.isQueued(id) else { return "#\(id) is not queued: only waiting tasks change places" }
            if !delegate.move(id, by: step) { return "#\(id) is already \(step > 0 ? "first" : "last") in the queue" }
            postQueueOrder()
        case .setConcurrency(let limit):
            delegate.setConcurrency(limit)
            return "at most \(delegate.concurrency) transfer\(delegate.concurrency == 1 ? "" : "s") at once"
        case .setSessionRate(let limit):
            session.setMaximumBytesPerSecond(limit)
            inbox.post(.sessionRateLimit(limit))
            return limit.map { "all transfers together at most " + ByteCountText.rate(Double($0)) } ?? "no overall limit"
        case .setTaskRate(let id, let limit):
            guard delegate.setRateLimit(id, limit) else { return "no such task" }
            inbox.post(.taskRateLimit(id: id, limit))
            return limit.map { "#\(id) at most " + ByteCountText.rate(Double($0)) } ?? "#\(id) has no limit of its own"
        case .refresh(let id, let text):
            refresh(id, to: text, force: false) { [self] problem in
                let note = Self.refreshNote(problem)
                self.note(id, note)
                answers.withLock { $0 }?("#\(id) " + note)
            }
            return "checking the new URL for #\(id)…"
        case .suspendAll:
            let running = delegate.managedTasks.filter { $0.task?.state == .running && !delegate.isQueued($0.row) }
            for managed in running { _ = perform(.suspend(managed.row)) }
            return "suspended \(running.count) task\(running.count == 1 ? "" : "s")"
        case .resumeAll:
            let suspended = delegate.managedTasks.filter { $0.task?.state == .suspended && !delegate.isQueued($0.row) }
            for managed in suspended { _ = perform(.resume(managed.row)) }
            return "resumed \(suspended.count) task\(suspended.count == 1 ? "" : "s")"
        }
        return nil
    }

    /// What a key aimed at a row with no engine task says: none such, or what `ended` says of a row that ended
    /// for good as a task of its kind.
    private static func unavailable(_ id: Int, _ carrier: RowCarrier, ended: (TaskKind) -> String) -> String {
        if case .ended(let kind) = carrier { return ended(kind) }
        return "no such task"
    }

    /// Tells the model where each queued row stands, so the list shows the queue's order.
    private func postQueueOrder() {
        inbox.post(.queueOrder(delegate.queued))
    }

    /// Stops everything still running (on quit): downloads keep their partial files and checkpoints, to be resumed
    /// by the same command or the next start; data tasks are cancelled.
    public func cancelAll() {
        let unfinished = delegate.unfinishedTasks
        keeper?.interrupt(unfinished.filter { !$0.keepsFile }.map(\.row))
        keeper?.stop()
        delegate.stopStarting()
        for (_, task, keepsFile) in unfinished {  // outside the lock: stopping calls into the session
            if keepsFile {
                task.stopKeepingResumeData()
            } else {
                task.cancel()
            }
        }
    }

    public var allCompleted: Bool { delegate.allTasksCompleted }

    /// Lets the hooks still running finish (each within its own timeout) before the process exits: false when
    /// `giveUp` said to stop waiting first. `announce(timeout)` hears once that a hook is keeping the exit waiting.
    @discardableResult
    public func waitForHooks(unless giveUp: () -> Bool = { false }, announce: (Double) -> Void = { _ in }) -> Bool {
        guard let hooks else { return true }
        return hooks.waitForHooks(seconds: hooks.hooks.timeout + 2, unless: giveUp) { announce(hooks.hooks.timeout) }
    }

    /// Ends the hooks still running (the user would not wait for them).
    public func stopHooks() { hooks?.stopHooks() }

    /// Waits (at most `seconds`, or until `giveUp` says) until every task has made its last delegate call, so that
    /// the downloads stopped on quit have written their checkpoints before the process exits.
    public func waitUntilStopped(seconds: Double, unless giveUp: () -> Bool = { false }) {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        // Polled every millisecond: the last delegate calls usually end within a few, and the process exits on them.
        while !allCompleted && !giveUp() && DispatchTime.now().uptimeNanoseconds < deadline { usleep(1_000) }
    }

    // MARK: The terminal UI

    /// Runs until `q` (or a signal sets `stop`); the terminal is restored before this returns.
    /// `message`: shown on the status line from the start (what the command line did that the list does not show).
    public func runInterface(theme: Theme, useColor: Bool, stop: StopFlag, exitWhenDone: Bool = false,
                             taskCommand: String? = nil, message: String? = nil) throws(Screen.StartError) {
        var ui = UIState()
        ui.message = message
        ui.taskCommand = taskCommand
        ui.quitKeepsDownloads = delegate.managesDownloads
        ui.addsDownloads = delegate.managesDownloads
        ui.exitWhenDone = exitWhenDone
        _ = try InterfaceLoop.run(self, ui: ui, theme: theme, useColor: useColor, stop: stop)
    }

    // MARK: Plain progress (no terminal)

    /// Prints a line for each task when it completes, one when it starts to wait for a retry, and about once a
    /// second one for each task under way (not for those waiting their turn or their retry); returns when all
    /// have completed, saying how they ended. `print` is given each pass's lines at once, joined by newlines (one
    /// write for the many tasks a pass can see end, not one each).
    @discardableResult
    public func runPlain(stop: StopFlag, print: (String) -> Void) -> PlainRun {
        var model = Model()
        defer { KeptUntilExit.keep(model, in: .plainMode) }  // not freed row by row on the way out (see KeptUntilExit)
        // By position in `model.rows`: a plain run adds rows and never removes one, so a row keeps its place. (A set
        // of ids cost two hashes a row a pass: with 2,000 rows, most of a pass.)
        var reported: [Bool] = []
        // The retry whose wait each row's last line announced (0: none): one line a wait, not a countdown a second.
        var retryShown: [Int] = []
        var lastPrint: UInt64 = 0
        var quitting = false
        let parked = suspendedAtRestore.withLock { $0 }  // the restore ran before this run began
        // Woken by the first event after a drain rather than polling: the last task's end is seen at once. At
        // most a hundred passes a second (a pass looks at every row): the pause comes before the wait, so an event
        // in a quiet moment is taken at once. One pass every 100 ms for Ctrl-C.
        let arrived = DispatchSemaphore(value: 0)
        inbox.onFirstEvent { arrived.signal() }
        // The pause and the wait end early when the last task has ended (the pass that drained its completion event
        // may have come before its delegate call cleared it): the command exits when its work does.
        let idle = DispatchSemaphore(value: 0)
        onIdle {
            idle.signal()
            arrived.signal()
        }
        defer { onIdle {} }  // nobody listens once this returns
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            _ = drain(into: &model)
            model.apply(.tick(now))
            let periodic = now &- lastPrint >= 1_000_000_000
            var unfinished = false
            var lines: [String] = []
            // By index, reading fields in place: `for row in` copied every row (a retain per string and array in
            // it) twice a pass, which with thousands of rows was a good part of the pass.
            let rows = model.rows
            if reported.count < rows.count {
                reported += repeatElement(false, count: rows.count - reported.count)
                retryShown += repeatElement(0, count: rows.count - retryShown.count)
            }
            // Left suspended by an earlier run, and nothing here resumes it: one line, and the run does not wait.
            func isParked(_ i: Int) -> Bool { rows[i].state == .suspended && rows[i].retry == nil && parked.contains(rows[i].id) }
            // A failed attempt printed as failed, and retried or placed again under another name: the next attempt
            // gets its own line, and the row is not done.
            for i in rows.indices where reported[i] && !isParked(i)
                && (rows[i].retry != nil || rows[i].state != .completed && rows[i].becameTask == nil) {
                reported[i] = false
                if let retry = rows[i].retry { retryShown[i] = retry.attempt }  // this line announces the wait
                lines.append(PlainLine.text(rows[i], now: now))
            }
            for i in rows.indices where !reported[i] {
                if rows[i].state == .completed && rows[i].outcome != nil || rows[i].becameTask != nil || isParked(i) {
                    lines.append(PlainLine.text(rows[i], now: now))
                    reported[i] = true
                } else {
                    unfinished = true
                    if let retry = rows[i].retry {
                        guard retryShown[i] != retry.attempt else { continue }
                        retryShown[i] = retry.attempt
                        lines.append(PlainLine.text(rows[i], now: now))
                    } else if periodic && rows[i].hasStarted {
                        lines.append(PlainLine.text(rows[i], now: now))
                    }
                }
            }
            if !lines.isEmpty { print(lines.joined(separator: "\n")) }
            if periodic { lastPrint = now }
            if stop.isSet && !quitting {
                quit(model: model)
                quitting = true
            }
            // Every task posts its row before it starts, so the model alone says when all have completed; once
            // stopped, rows that were waiting for a retry or their turn never will, and the engine says when
            // nothing runs any more (they stay unfinished, for the next start to resume).
            if quitting ? isDone : !unfinished && inbox.isEmpty && !delegate.hasRetriesInHand {
                let history = endedAtRestore.withLock { $0 }
                return PlainRun.tally(rows, leavingOut: history)
            }
            let spent = DispatchTime.now().uptimeNanoseconds &- now
            if spent < 10_000_000 { _ = idle.wait(timeout: .now() + .nanoseconds(Int(10_000_000 - spent))) }
            _ = arrived.wait(timeout: .now() + .milliseconds(100))
        }
    }
}
