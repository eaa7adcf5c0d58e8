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
    private let outputDirectory: String

    /// Downloads (converted data tasks) are saved in `outputDirectory`, which also holds their partial files. At
    /// most `concurrency` tasks transfer at once (and as many connections per host, six at least); the rest wait.
    public init(outputDirectory: String, concurrency: Int = 6) {
        self.outputDirectory = outputDirectory
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

    /// The same, and into the flows the sequence view and the exports read.
    func drain(into model: inout Model, flows: inout FlowLog) -> Bool {
        let events = inbox.take()
        for event in events {
            model.apply(event)
            flows.apply(event)
        }
        return !events.isEmpty
    }

    /// Writes the file `export` asks for into the output directory; a message saying where, or why not.
    func perform(_ export: Export, model: Model, flows: FlowLog) -> String {
        let written: Result<String, PlacementError>
        switch export {
        case .mermaid(let id), .har(let id):
            let chain = flows.chain(containing: id)
            guard let first = chain.first else { return "nothing recorded for #\(id)" }
            let name = model.row(id)?.name ?? "task-\(id)"
            if case .mermaid = export {
                let title = "sluice, observed delegate flow of task \(first.id)" + (chain.count > 1 ? " and download task \(chain[chain.count - 1].id)" : "")
                written = ExportFile.write(MermaidWriter.text(SequenceDiagram.of([chain]), title: title), into: outputDirectory,
                                           name: name, suffix: ".mmd")
            } else {
                guard HARWriter.isHTTP(first.url) else { return "#\(id) is not an HTTP transfer: a HAR has nothing to say about it" }
                written = ExportFile.write(HARWriter.text([chain], clock: .now, title: "sluice, task \(first.id)"), into: outputDirectory,
                                           name: name, suffix: ".har")
            }
        case .harOfCompleted:
            let chains = flows.chains.filter { $0.last?.hasEnded == true && HARWriter.isHTTP($0.first?.url ?? "") }
            guard !chains.isEmpty else { return "no completed HTTP transfer yet" }
            written = ExportFile.write(HARWriter.text(chains, clock: .now, title: "sluice, \(chains.count) completed tasks"),
                                       into: outputDirectory, name: "sluice-tasks", suffix: ".har")
        }
        switch written {
        case .success(let path): return "wrote " + path
        case .failure(let problem): return problem.message
        }
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
        var flows = FlowLog()
        var ui = UIState()
        ui.asciiArt = theme.name == "mono" || !TerminalLocale.isUTF8(ProcessInfo.processInfo.environment)
        var lastDraw: UInt64 = 0
        var dirty = true
        while !stop.isSet {
            let key = screen.readKey(milliseconds: 50)
            let now = DispatchTime.now().uptimeNanoseconds
            if drain(into: &model, flows: &flows) { dirty = true }
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
                        flows.forget(id)
                    case .export(let export):
                        ui.message = perform(export, model: model, flows: flows)
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
                screen.draw(Renderer.render(model: model, ui: ui, width: size.width, height: size.height, flows: flows))
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
