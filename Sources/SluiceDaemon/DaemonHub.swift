// The daemon's heart: one TransferApp with no screen, its model and its numbered events, and every request of the
// API carried out on one serial queue, so the model never needs a second owner. Nothing runs while nothing
// happens: the queue drains when the engine posts, and ticks (for rates) only while a transfer runs.
import Dispatch
import Logging
import SluiceEngine
import SluiceTUI
import SluiceViewModel
import SluiceLock
import SluiceStore

/// What a request gets back: an HTTP status and a JSON body.
public struct DaemonReply: Sendable, Equatable {
    public let status: Int
    public let body: String

    public init(_ status: Int, _ body: String) {
        self.status = status
        self.body = body
    }

    static func error(_ status: Int, _ message: String) -> DaemonReply { DaemonReply(status, TaskJSON.error(message)) }
}

public final class DaemonHub: Sendable {
    public enum Control: String, Sendable, CaseIterable {
        case suspend, resume, cancel, convert
    }

    public let app: TransferApp
    /// Every touch of `state` happens here.
    let queue = DispatchQueue(label: "sluice.daemon.hub")
    private let encoder: EventLineEncoder
    private let logger: Logger
    private let stopRequested = DispatchSemaphore(value: 0)

    private struct Subscriber {
        let send: @Sendable (String) -> Void
        let finish: @Sendable () -> Void
        /// `/events` gets `--trace`'s lines; `/attach` gets the model's own events (`AttachLine`).
        let attached: Bool
    }

    private struct State {
        var model = Model()
        var log = EventLog()
        var subscribers: [Int: Subscriber] = [:]
        var nextSubscriber = 1
        var tickPending = false
        /// A drain is due for the rows the store keeper deferred (see `StoreKeeper`): none may wait for an event.
        var storePassPending = false
        var stopping = false
    }

    private let state = Locked(State())

    /// `traceLine` is `TraceEncoder.line`, which lives with the command line.
    /// The daemon's identifier (`--id`), which attached UIs show.
    public let identifier: String

    public init(app: TransferApp, identifier: String = "default", traceLine: @escaping @Sendable (TaskEventRecord, UInt64) -> String,
                logger: Logger) {
        self.app = app
        self.identifier = identifier
        self.logger = logger
        encoder = EventLineEncoder(traceLine: traceLine, start: DispatchTime.now().uptimeNanoseconds)
        let queue = self.queue
        app.onEvents { [weak self] in
            guard let hub = self else { return }
            queue.async { hub.drain() }
        }
    }

    // MARK: Events

    private func drain() {
        let (text, events, receivers) = state.withLock { s -> (String, [ModelEvent], [Subscriber]) in
            let first = s.log.next
            let events = app.drainEvents(into: &s.model)
            for event in events {
                s.log.append(event)
                note(event, model: s.model)
            }
            if !s.tickPending && s.model.rows.contains(where: { $0.state == .running }) {
                s.tickPending = true
                scheduleTick()
            }
            if !s.storePassPending && app.storeHasDeferredRows {
                s.storePassPending = true
                queue.asyncAfter(deadline: .now() + app.storeDeferral) { [weak self] in
                    guard let self else { return }
                    state.withLock { $0.storePassPending = false }
                    drain()
                }
            }
            guard !s.subscribers.isEmpty, !events.isEmpty else { return ("", [], []) }
            let receivers = Array(s.subscribers.values)
            guard receivers.contains(where: { !$0.attached }) else { return ("", events, receivers) }
            let lines = s.log.since(first).compactMap { encoder.line(seq: $0.seq, $0.event) }
            return (lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n", events, receivers)
        }
        guard !receivers.isEmpty else { return }
        // Encoded here, outside the lock but still on the hub's queue, so lines leave in the order events came.
        let modelLine = receivers.contains(where: \.attached) ? AttachLine.events(events.filter(\.isKept)).text : nil
        for subscriber in receivers {
            if subscriber.attached {
                if let modelLine { subscriber.send(modelLine) }
            } else if !text.isEmpty {
                subscriber.send(text)
            }
        }
    }

    /// Sends one line to every attached UI (a row removed, a split download's ranges).
    private func tellAttached(_ line: AttachLine) {
        let receivers = state.withLock { s in s.subscribers.values.filter(\.attached) }
        guard !receivers.isEmpty, let text = line.text else { return }
        for subscriber in receivers { subscriber.send(text) }
    }

    /// Rates are sampled once a second while something runs, and not at all otherwise.
    private func scheduleTick() {
        queue.asyncAfter(deadline: .now() + 1) { [weak self] in
            guard let self else { return }
            let (again, running) = state.withLock { s -> (Bool, [Int]) in
                s.model.apply(.tick(DispatchTime.now().uptimeNanoseconds))
                let running = s.model.rows.filter { $0.state == .running }.map(\.id)
                s.tickPending = !running.isEmpty
                return (s.tickPending, running)
            }
            // A split download's ranges, for an attached UI's segment map: sampled here, as the UI samples them.
            let sampled = running.compactMap { id in app.segments(of: id).map { ModelEvent.segments(id: id, $0) } }
            if !sampled.isEmpty {
                state.withLock { s in for event in sampled { s.model.apply(event) } }
                tellAttached(.events(sampled))
            }
            if again { scheduleTick() }
        }
    }


    /// The log's account of what matters: tasks added, ended, saved, retried.
    private func note(_ event: ModelEvent, model: Model) {
        switch event {
        case .added(let id, let url, let kind, _, _, _):
            logger.info("added #\(id) (\(kind.rawValue)) \(Redacted.url(url))")
        case .restored(let row) where !row.isFinished:
            logger.info("resuming #\(row.id) \(Redacted.url(row.url))")
        case .saved(let id, let path):
            logger.info("saved #\(id) to \(path)")
        case .note(let id, let text) where text.contains(" hook "):
            logger.notice("#\(id): \(text)")
        case .retrying(let id, let attempt, let of, _, let reason):
            logger.notice("retrying #\(id) (\(attempt)/\(of)): \(reason)")
        case .engine(let record):
            guard case .didCompleteWithError(let error) = record.event, let row = model.row(record.taskIdentifier) else { return }
            if let error {
                logger.notice("#\(row.id) ended: \(error.message)", metadata: ["code": "\(error.code.rawValue)"])
            } else {
                logger.info("#\(row.id) finished: \(row.bytes) bytes")
            }
        default:
            break
        }
    }

    /// Streams the events numbered `from` and later, then every new one as it comes; the id to unsubscribe with.
    public func subscribe(from: Int, send: @escaping @Sendable (String) -> Void, finish: @escaping @Sendable () -> Void) -> Int {
        let (id, replay) = state.withLock { s -> (Int, String) in
            let id = s.nextSubscriber
            s.nextSubscriber += 1
            let lines = s.log.since(max(1, from)).compactMap { encoder.line(seq: $0.seq, $0.event) }
            s.subscribers[id] = Subscriber(send: send, finish: finish, attached: false)
            return (id, lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n")
        }
        if !replay.isEmpty { send(replay) }
        return id
    }

    /// An attached UI (`GET /attach`, on the hub's queue): the whole model as it stands, then every event that
    /// changes it, so that each attached UI shows what the daemon's own model holds.
    public func attach(send: @escaping @Sendable (String) -> Void, finish: @escaping @Sendable () -> Void) -> Int {
        drain()
        let (id, snapshot) = state.withLock { s -> (Int, AttachSnapshot) in
            let id = s.nextSubscriber
            s.nextSubscriber += 1
            s.subscribers[id] = Subscriber(send: send, finish: finish, attached: true)
            s.model.apply(.tick(DispatchTime.now().uptimeNanoseconds))
            return (id, AttachSnapshot(identifier: identifier, rows: s.model.rows, sessionRateLimit: s.model.sessionRateLimit,
                                       outputDirectory: outputDirectory))
        }
        if let text = AttachLine.snapshot(snapshot).text { send(text) }
        return id
    }

    public func unsubscribe(_ id: Int) {
        _ = state.withLock { $0.subscribers.removeValue(forKey: id) }
    }

    // MARK: Requests (on `queue`)

    /// Carries out `work` on the hub's queue and hands its reply to `reply`.
    public func perform(_ work: @escaping @Sendable (DaemonHub) -> DaemonReply, reply: @escaping @Sendable (DaemonReply) -> Void) {
        queue.async { reply(work(self)) }
    }

    /// Runs `body` on the hub's queue (for the subscriptions, which must not miss an event in between).
    public func onQueue(_ body: @escaping @Sendable () -> Void) { queue.async(execute: body) }

    public func rows() -> DaemonReply {
        let now = DispatchTime.now().uptimeNanoseconds
        let rows = state.withLock { s -> [TaskRow] in
            s.model.apply(.tick(now))
            return s.model.rows
        }
        return DaemonReply(200, TaskJSON.array(rows, now: now))
    }

    public func add(_ request: AddRequest) -> DaemonReply {
        let url = request.url
        let added = request.kind == .download
            ? app.addDownload(url, to: request.destination ?? .directory(outputDirectory), split: request.split, request: request.request)
            : app.add(url, asks: request.ask, kind: .data, request: request.request)
        switch added {
        case .success(let id):
            if let rate = request.bytesPerSecond { _ = app.carryOut(.setTaskRate(id, rate)) }
            drain()  // the new row is in the model before the reply says it exists
            return DaemonReply(201, "{\"id\":\(id)}")
        case .failure(let problem):
            logger.notice("refused to add \(url): \(problem.message)")
            return .error(422, problem.message)
        }
    }

    public func control(_ id: Int, _ action: Control) -> DaemonReply {
        drain()
        guard state.withLock({ $0.model.row(id) }) != nil else { return .error(404, "no task #\(id)") }
        let intent: Intent
        switch action {
        case .suspend: intent = .suspend(id)
        case .resume: intent = .resume(id)
        case .cancel: intent = .cancel(id)
        case .convert: intent = .convert(id)
        }
        if let problem = app.carryOut(intent) { return .error(409, problem) }
        logger.info("\(action.rawValue) #\(id)")
        return DaemonReply(200, "{\"id\":\(id),\"done\":\(JSONText.quote(action.rawValue))}")
    }

    /// Removes a finished row, from the history too; `purge` deletes its file as well.
    public func remove(_ id: Int, purge: Bool = false) -> DaemonReply {
        drain()
        let (refusal, message) = removeRow(id, purge: purge)
        if let refusal { return refusal }
        return DaemonReply(200, "{\"id\":\(id),\"removed\":true" + (message.map { ",\"message\":" + JSONText.quote($0) } ?? "") + "}")
    }

    /// `remove` once drained: a refusal, or what was done worth saying (a file deleted, a partial file kept).
    private func removeRow(_ id: Int, purge: Bool) -> (refusal: DaemonReply?, message: String?) {
        let refusal = state.withLock { s -> DaemonReply? in
            guard let row = s.model.row(id) else { return .error(404, "no task #\(id)") }
            guard row.isFinished else { return .error(409, "#\(id) is \(row.stateWord): cancel it before removing it (sluice cancel \(id))") }
            return nil
        }
        if let refusal { return (refusal, nil) }
        let saved = state.withLock { $0.model.savedFileToPurge(id) }
        let message = purge ? app.purge(id, savedPath: saved) : app.forget(id)
        _ = state.withLock { $0.model.remove(id) }
        tellAttached(.removed(id))
        logger.info("\(message ?? "removed #\(id)")")
        return (nil, message)
    }

    /// A new URL for a stopped, failed or queued download (`sluice refresh`); the reply once the new URL is checked.
    func refresh(_ id: Int, url: String, force: Bool, reply: @escaping @Sendable (DaemonReply) -> Void) {
        queue.async { [self] in
            drain()
            guard state.withLock({ $0.model.row(id) }) != nil else { return reply(.error(404, "no task #\(id)")) }
            app.refresh(id, to: url, force: force) { [self] problem in
                app.note(id, TransferApp.refreshNote(problem))
                if let problem {
                    logger.notice("refresh of #\(id) refused: \(problem)")
                    return reply(.error(409, problem))
                }
                logger.info("#\(id) refreshed to \(url)")
                reply(DaemonReply(200, "{\"id\":\(id),\"url\":" + JSONText.quote(url) + "}"))
            }
        }
    }

    /// Every ended row removed (the UI's `C`); their ids, and a message naming the partial files kept.
    func clearEnded() -> DaemonReply {
        drain()
        let ended = state.withLock { $0.model.rows.filter(\.isFinished).map(\.id) }
        let notes = ended.compactMap { removeRow($0, purge: false).message }
        var message = "removed \(ended.count) task\(ended.count == 1 ? "" : "s") that had ended"
        if !notes.isEmpty { message += "\n" + notes.joined(separator: "\n") }
        return DaemonReply(200, "{\"removed\":[" + ended.map(String.init).joined(separator: ",") + "],\"message\":" + JSONText.quote(message) + "}")
    }

    /// Pause all / resume all (the UI's `P` and `R`).
    func all(_ intent: Intent) -> DaemonReply {
        drain()
        let message = app.carryOut(intent) ?? ""
        logger.info("\(message)")
        return DaemonReply(200, "{\"message\":" + JSONText.quote(message) + "}")
    }

    func setLimits(_ limits: LimitsRequest) -> DaemonReply {
        if let jobs = limits.jobs, !(1...10_000).contains(jobs) { return .error(400, "jobs is 1 to 10000") }
        if case .some(.some(let rate)) = limits.rate, rate < 1 { return .error(400, "bytesPerSecond is at least 1, or null for no limit") }
        var fields: [String] = []
        var said: [String] = []
        if let jobs = limits.jobs {
            said.append(app.carryOut(.setConcurrency(jobs)) ?? "")
            fields.append("\"jobs\":\(jobs)")
        }
        if let rate = limits.rate {
            said.append(app.carryOut(.setSessionRate(rate)) ?? "")
            fields.append("\"bytesPerSecond\":" + (rate.map(String.init) ?? "null"))
        }
        drain()
        let message = said.filter { !$0.isEmpty }.joined(separator: "; ")
        logger.info("\(message)")
        return DaemonReply(200, "{" + fields.joined(separator: ",") + ",\"message\":" + JSONText.quote(message) + "}")
    }

    /// Moves a queued task `step` places towards the front (negative: the back), as the UI's `+` and `-`.
    func move(_ id: Int, by step: Int) -> DaemonReply {
        drain()
        guard state.withLock({ $0.model.row(id) }) != nil else { return .error(404, "no task #\(id)") }
        if let problem = app.carryOut(.move(id, by: step)) { return .error(409, problem) }
        drain()
        return DaemonReply(200, "{\"id\":\(id),\"done\":\"move\"}")
    }

    /// One task's own receive limit (nil: none), as the UI's `l`.
    func setRate(of id: Int, _ limit: Int64?) -> DaemonReply {
        if let limit, limit < 1 { return .error(400, "bytesPerSecond is at least 1, or null for no limit") }
        drain()
        guard let row = state.withLock({ $0.model.row(id) }) else { return .error(404, "no task #\(id)") }
        if row.isFinished { return .error(409, "#\(id) has ended: a limit is for a task under way or waiting") }
        let message = app.carryOut(.setTaskRate(id, limit)) ?? ""
        drain()
        logger.info("\(message)")
        return DaemonReply(200, "{\"id\":\(id),\"bytesPerSecond\":" + (limit.map(String.init) ?? "null") + ",\"message\":" + JSONText.quote(message) + "}")
    }

    /// Where downloads go when a request names no place: the daemon's output directory.
    public var outputDirectory: String { app.session.configuration.downloadDirectory }

    // MARK: Stopping

    /// Asks the daemon to stop (POST /stop, SIGTERM); `waitForStopRequest` returns.
    public func requestStop() {
        let first = state.withLock { s -> Bool in
            defer { s.stopping = true }
            return !s.stopping
        }
        if first { stopRequested.signal() }
    }

    public func waitForStopRequest() { stopRequested.wait() }

    /// The store keeps every row as the model shows it once the events waiting are drained: before a stop, which
    /// leaves the rows as they are. On the hub's queue, so no drain runs between the two.
    public func settleStore() {
        queue.sync {
            drain()
            state.withLock { s in app.settleStore(s.model) }
        }
    }

    /// Ends every event stream (the daemon is going away).
    public func finishSubscribers() {
        let all = state.withLock { s -> [Subscriber] in
            defer { s.subscribers = [:] }
            return Array(s.subscribers.values)
        }
        for subscriber in all { subscriber.finish() }
    }
}
