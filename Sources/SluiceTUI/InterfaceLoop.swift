// The terminal UI's loop: keys in, the driver's events into the model, a frame out a few times a second. The
// same for this process's own transfers and for a daemon's (`sluice attach`).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import SluiceLock
import SluiceViewModel

public enum InterfaceLoop {
    /// Runs until `q` (or a signal sets `stop`, or the driver ends); the terminal is restored before this
    /// returns. Returns the driver's reason when it ended the loop itself.
    public static func run(_ driver: some InterfaceDriver, ui start: UIState, theme: Theme, useColor: Bool,
                           stop: StopFlag) throws(Screen.StartError) -> String? {
        let screen = try Screen(theme: theme, useColor: useColor)
        defer { screen.stop() }
        var model = Model()
        var flows = PendingFlows()
        // After the loop its command only stops its tasks and exits: what it built is not freed row by row.
        defer { KeptUntilExit.keep((model, flows), in: .screen) }
        var ui = start
        ui.asciiArt = theme.name == "mono" || !TerminalLocale.isUTF8(ProcessInfo.processInfo.environment)
        var pacing = FramePacing()
        var storeTrouble: String?  // as last told
        var dirty = true
        var wasActive = false
        // What a `!` command did and how a refresh went, told later from other threads.
        let told = Locked<[String]>([])
        // The driver's events wake the loop (at most a hundred passes a second while they flow), so that the end
        // of the last transfer is seen when it happens, not at the next timeout.
        let wake = WakeSignal()
        if let wake { driver.onEvents { wake.signal() } }
        // The last task's end is taken at once, not after the pause between passes.
        let idle = WakeSignal()
        if let idle { driver.onIdle { idle.signal() } }
        defer { driver.onIdle {} }  // the stops that follow the loop end tasks too: nobody listens then
        driver.onAnswer { text in
            told.withLock { $0.append(text) }
            wake?.signal()
        }
        defer { driver.onAnswer { _ in } }
        var lastPass: UInt64?
        while !stop.isSet {
            if let reason = driver.ended { return reason }
            if let pause = Self.pause(since: lastPass, now: DispatchTime.now().uptimeNanoseconds) {
                _ = InputWait.wait(input: STDIN_FILENO, wake: wake, urgent: idle, timeout: pause.timeout,
                                   notBefore: pause.notBefore)
            }
            // Every key already typed (a paste is thousands) is handled before the next frame is drawn.
            var keys: [Key] = []
            while keys.count < 65536, let next = screen.readKey(milliseconds: 0) { keys.append(next) }
            let now = DispatchTime.now().uptimeNanoseconds
            lastPass = now
            // The newest: two told within one pass, the older is stale (popping one a pass showed the older last).
            if let said = told.withLock({ told -> String? in
                defer { told.removeAll() }
                return told.last
            }) {
                ui.message = said
                dirty = true
            }
            if driver.drain(into: &model, flows: &flows) {
                dirty = true
                // The moment the last transfer ends is shown at once, not at the next frame.
                let active = model.runningCount > 0
                if wasActive && !active { pacing.expedite() }
                wasActive = active
            }
            // The model says first (a field per row); the driver's look at every task is made only when it agrees.
            if ui.exitWhenDone && !wasActive && driver.isDone {
                driver.quit(model: model)
                return nil
            }
            for key in keys {
                if key == .resize { dirty = true }
                let commands = KeyHandler.handle(key, ui: &ui, model: &model)
                for command in commands {
                    switch command {
                    case .quit:
                        driver.quit(model: model)
                        return nil
                    case .stopDaemon:
                        if let message = driver.stopDaemon() { ui.message = message } else { return nil }
                    case .intent(let intent):
                        if let message = driver.perform(intent) { ui.message = message }
                    case .forget(let id):
                        if let note = driver.forget(id) { ui.message = note }
                        flows.forget(id)
                    case .export(let export):
                        ui.message = driver.perform(export, model: model, flows: flows.current())
                    case .purge(let id, let path):
                        ui.message = driver.purge(id, savedPath: path)
                        flows.forget(id)
                    case .open(let path):
                        ui.message = FileOpener.open(path)
                    case .runCommand(let command, let task):
                        ui.message = "running the task-command for #\(task.id)"
                        HookRunner.run(command, for: task) { text in told.withLock { $0.append("#\(task.id): " + text) } }
                    }
                }
                dirty = true
                pacing.expedite()  // a key is answered at once
            }
            // A few frames a second while bytes flow; every event before then is folded into the model.
            if pacing.tick(now: now) {
                model.apply(.tick(now))
                let trouble = driver.storeTrouble
                if let said = StoreTrouble.message(was: storeTrouble, now: trouble) { ui.message = said }
                storeTrouble = trouble
                if let id = model.selectedID, let ranges = driver.segments(of: id) { model.apply(.segments(id: id, ranges)) }
                dirty = true
            }
            if pacing.draw(now: now, changed: dirty) {
                let size = screen.size
                let shown = Renderer.readsFlows(ui) ? flows.current() : FlowLog()
                screen.draw(Renderer.render(model: model, ui: ui, width: size.width, height: size.height, flows: shown))
                dirty = false
            }
        }
        driver.quit(model: model)
        return nil
    }

    /// How long the loop may sleep before its next pass (milliseconds: at most `timeout`, and events heeded no
    /// sooner than `notBefore`, so that at most a hundred passes a second look at every row). The first pass does
    /// not sleep: events posted before the loop set its wake signals (a fast transfer, a list already under way)
    /// signal no one, and the first frame waited for the 50 ms timeout, as did `--exit-when-done` when the work
    /// had ended by then.
    static func pause(since lastPass: UInt64?, now: UInt64) -> (timeout: Int32, notBefore: Int32)? {
        guard let lastPass else { return nil }
        let elapsed = (now &- lastPass) / 1_000_000
        return (timeout: 50, notBefore: elapsed >= 10 ? 0 : Int32(10 - elapsed))
    }
}
