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
import SluiceViewModel
import Synchronization

public final class TransferApp: Sendable {
    public let session: Session
    private let delegate: TUIDelegate
    private let inbox = EventInbox()

    /// Downloads (converted data tasks) are saved in `outputDirectory`, which also holds their partial files. At
    /// most `concurrency` tasks transfer at once (and as many connections per host, six at least); the rest wait.
    public init(outputDirectory: String, concurrency: Int = 6) {
        let inbox = self.inbox
        let post: @Sendable (ModelEvent) -> Void = { inbox.post($0) }
        delegate = TUIDelegate(outputDirectory: outputDirectory, concurrency: concurrency, post: post)
        var configuration = SessionConfiguration.default
        configuration.httpMaximumConnectionsPerHost = max(concurrency, configuration.httpMaximumConnectionsPerHost)
        configuration.downloadDirectory = outputDirectory
        session = Session(configuration: configuration, delegate: delegate, eventMonitor: { post(.engine($0)) })
    }

    /// Adds a data task, started now or when its turn comes; with `asks` its response waits for the user's r, c
    /// or d. Nil for a URL sluice refuses.
    @discardableResult
    public func add(_ text: String, asks: Bool = false) -> Int? {
        guard let url = ParsedURL.parse(text) else { return nil }
        let task = session.dataTask(with: url)
        let headers = task.currentRequest.headers.map { HeaderLine($0.name, $0.value) }
        inbox.post(.added(id: task.taskIdentifier, url: url.absoluteString, kind: .data, requestHeaders: headers,
                          at: DispatchTime.now().uptimeNanoseconds))
        if delegate.track(task, asks: asks) { task.resume() }
        return task.taskIdentifier
    }

    /// Moves what the engine reported into `model`.
    func drain(into model: inout Model) -> Bool {
        let events = inbox.take()
        for event in events { model.apply(event) }
        return !events.isEmpty
    }

    /// Carries out an intent; returns a message for the user when it cannot be done.
    func perform(_ intent: Intent) -> String? {
        switch intent {
        case .add(let text):
            return add(text) == nil ? "not a URL sluice can fetch: \(text)" : nil
        case .resume(let id):
            if delegate.answer(id, .allow) { return nil }
            guard let task = delegate.task(id) else { return "no such task" }
            if task.state != .suspended { return "#\(id) is \(task.state.rawValue), not suspended" }
            delegate.startedByUser(id)
            task.resume()
        case .suspend(let id):
            guard let task = delegate.task(id) else { return "no such task" }
            if delegate.isQueued(id) { return "#\(id) is queued, not running (r starts it now)" }
            if task.state != .running { return "#\(id) is \(task.state.rawValue), not running" }
            task.suspend()
        case .cancel(let id):
            if delegate.answer(id, .cancel) { return nil }
            guard let task = delegate.task(id) else { return "no such task" }
            if task.state == .completed { return "#\(id) has already completed" }
            task.cancel()
        case .convert(let id):
            if delegate.answer(id, .becomeDownload) { return nil }
            guard let task = delegate.task(id) else { return "no such task" }
            guard let dataTask = task as? DataTask else { return "#\(id) is already a download" }
            if task.state == .completed { return "#\(id) has already completed" }
            if delegate.isQueued(id) { return "#\(id) is queued: nothing to convert yet (r starts it now)" }
            dataTask.convertToDownload()
        }
        return nil
    }

    /// Cancels everything still running (on quit).
    public func cancelAll() {
        delegate.stopStarting()
        for task in delegate.tasks where task.state != .completed { task.cancel() }
    }

    public var allCompleted: Bool { delegate.tasks.allSatisfy { $0.state == .completed } }

    // MARK: The terminal UI

    /// Runs until `q` (or a signal sets `stop`); the terminal is restored before this returns.
    public func runInterface(theme: Theme, useColor: Bool, stop: StopFlag) throws(Screen.StartError) {
        let screen = try Screen(theme: theme, useColor: useColor)
        defer { screen.stop() }
        var model = Model()
        var ui = UIState()
        var lastDraw: UInt64 = 0
        var dirty = true
        while !stop.isSet {
            let key = screen.readKey(milliseconds: 50)
            let now = DispatchTime.now().uptimeNanoseconds
            if drain(into: &model) { dirty = true }
            if let key {
                if key == .resize { dirty = true }
                let commands = KeyHandler.handle(key, ui: &ui, model: &model)
                for command in commands {
                    switch command {
                    case .quit:
                        cancelAll()
                        return
                    case .intent(let intent):
                        if let message = perform(intent) { ui.message = message }
                    case .forget(let id):
                        delegate.forget(id)
                    }
                }
                dirty = true
                lastDraw = 0  // a key is answered at once
            }
            // A few frames a second while bytes flow; every event before then is folded into the model.
            if now &- lastDraw >= 200_000_000 {
                model.apply(.tick(now))
                dirty = true
            }
            if dirty && now &- lastDraw >= 100_000_000 {
                let size = screen.size
                screen.draw(Renderer.render(model: model, ui: ui, width: size.width, height: size.height))
                lastDraw = now
                dirty = false
            }
        }
        cancelAll()
    }

    // MARK: Plain progress (no terminal)

    /// Prints a line for each task when it completes, and about once a second one for each task under way (not
    /// for those still waiting their turn); returns when all have completed.
    public func runPlain(stop: StopFlag, print: (String) -> Void) {
        var model = Model()
        var reported: Set<Int> = []
        var lastPrint: UInt64 = 0
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            _ = drain(into: &model)
            model.apply(.tick(now))
            let periodic = now &- lastPrint >= 1_000_000_000
            var unfinished = false
            for row in model.rows where !reported.contains(row.id) {
                if row.state == .completed && row.outcome != nil || row.becameTask != nil {
                    print(PlainLine.text(row, now: now))
                    reported.insert(row.id)
                } else {
                    unfinished = true
                    if periodic && row.hasStarted { print(PlainLine.text(row, now: now)) }
                }
            }
            if periodic { lastPrint = now }
            if stop.isSet { cancelAll() }
            // Every task posts its row before it starts, so the model alone says when all have completed.
            if !unfinished && inbox.isEmpty { return }
            usleep(50_000)
        }
    }
}
