// Hooks run the user's command with the task's facts in SLUICE_* variables only: a URL full of shell syntax stays
// text. A failing hook and a hanging one (stopped at its timeout, with its children) are reported, never waited on
// by the transfers.
import Foundation
import SluiceLock
@testable import SluiceTUI
import SluiceViewModel
import Testing

struct TaskHooksTests {
    private func scratch() throws -> String {
        let path = NSTemporaryDirectory() + "sluice-hooks-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    private func waitFor(_ reports: Locked<[String]>, count: Int) async throws {
        for _ in 0..<500 where reports.withLock({ $0.count }) < count { try await Task.sleep(nanoseconds: 20_000_000) }
    }

    @Test func theFactsArriveAsVariablesAndServerTextNeverRuns() async throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let reports = Locked<[String]>([])
        let hooks = TaskHooks(onComplete: "printf '%s|%s|%s|%s|%s|%s' \"$SLUICE_TASK_ID\" \"$SLUICE_URL\" \"$SLUICE_FILE\" \"$SLUICE_STATUS\" \"$SLUICE_BYTES\" \"$SLUICE_ERROR\" > '\(dir)/out'",
                              onError: "echo \"$SLUICE_STATUS $SLUICE_ERROR\" > '\(dir)/error'")
        let runner = HookRunner(hooks) { id, text in reports.withLock { $0.append("\(id ?? -1) \(text)") } }
        let hostile = "http://h/$(touch \(dir)/pwned)`touch \(dir)/pwned2`;touch \(dir)/pwned3"
        runner.ended(EndedTask(id: 7, url: hostile, file: "\(dir)/a b.bin", outcome: .finished, httpStatus: 200, bytes: 42, error: nil))
        runner.ended(EndedTask(id: 8, url: "http://h/x", file: nil, outcome: .failed, httpStatus: nil, bytes: 0, error: "connection refused"))
        runner.waitForHooks(seconds: 10)
        try await waitFor(reports, count: 2)
        #expect(try String(contentsOfFile: dir + "/out", encoding: .utf8) == "7|\(hostile)|\(dir)/a b.bin|finished|42|")
        #expect(try String(contentsOfFile: dir + "/error", encoding: .utf8) == "failed connection refused\n")
        for name in ["pwned", "pwned2", "pwned3"] { #expect(!FileManager.default.fileExists(atPath: dir + "/" + name)) }
        #expect(Set(reports.withLock { $0 }) == ["7 on-complete hook ran", "8 on-error hook ran"])
    }

    @Test func aFailingHookAndAHangingOneAreReported() async throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let reports = Locked<[String]>([])
        let failing = HookRunner(TaskHooks(onComplete: "exit 3")) { _, text in reports.withLock { $0.append(text) } }
        failing.ended(EndedTask(id: 1, url: "u", file: nil, outcome: .finished, httpStatus: 200, bytes: 0, error: nil))
        failing.waitForHooks(seconds: 10)
        try await waitFor(reports, count: 1)
        #expect(reports.withLock { $0 } == ["on-complete hook failed: exit 3"])

        // The hook starts a child that would outlive it; the timeout ends both (the whole process group).
        let started = Date()
        let hanging = HookRunner(TaskHooks(onQueueEmpty: "sleep 30 & echo $! > '\(dir)/child'; wait", timeout: 0.5)) { _, text in
            reports.withLock { $0.append(text) }
        }
        hanging.queueEmptied()
        hanging.waitForHooks(seconds: 10)
        #expect(Date().timeIntervalSince(started) < 5, "stopped at its timeout, not after the sleep")
        let child = try #require(Int32(try String(contentsOfFile: dir + "/child", encoding: .utf8).filter(\.isNumber)))
        // Gone, or a zombie its new parent has not reaped yet: either way no longer running.
        for _ in 0..<100 {
            let state = (try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8))?.split(separator: " ").dropFirst(2).first
            if state == nil || state == "Z" { break }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        let state = (try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8))?.split(separator: " ").dropFirst(2).first
        #expect(state == nil || state == "Z", "its child was stopped too (state \(state.map(String.init) ?? "gone"))")
    }

    /// A hook starts with no signal blocked and none of the stopping ones ignored, whatever the thread that spawns it
    /// blocks (Dispatch's workers block nearly all) and whatever sluice ignores while it traps them: exec keeps both,
    /// and a hook that blocked SIGTERM could be stopped by neither its timeout nor the user, only by SIGKILL. (The
    /// shell execs grep: a command it forks starts with a cleared mask, which would hide what the shell was given.)
    @Test func aHookStartsWithItsSignalsAsUsual() async throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let runner = HookRunner(TaskHooks(onQueueEmpty: "exec grep -E '^Sig(Blk|Ign):' /proc/self/status > '\(dir)/signals'")) { _, _ in }
        runner.queueEmptied()
        #expect(runner.waitForHooks(seconds: 10))
        let lines = try String(contentsOfFile: dir + "/signals", encoding: .utf8).split(separator: "\n")
        func mask(_ name: String) -> UInt64? {
            lines.first { $0.hasPrefix(name + ":") }.flatMap { UInt64($0.split(separator: "\t").last ?? "", radix: 16) }
        }
        #expect(mask("SigBlk") == 0)
        let stopping = [SIGINT, SIGTERM, SIGHUP].reduce(UInt64(0)) { $0 | 1 << UInt64($1 - 1) }
        #expect(mask("SigIgn").map { $0 & stopping } == 0)
    }

    /// A hook gets none of sluice's descriptors but 0, 1 and 2, close-on-exec or not: the daemon's sockets are not,
    /// and a hook still running (`exec sleep 600`) that held a client's connection kept `sluice add` from ever
    /// seeing the end of its reply.
    @Test func aHookInheritsNoDescriptorOfSluices() async throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)  // without O_CLOEXEC, as NIO's accepted sockets are
        defer { ends.forEach { close($0) } }
        // `[` is the shell's own, so /proc/self is the hook's shell.
        let command = ends.map { "if [ -e /proc/self/fd/\($0) ]; then touch '\(dir)/inherited\($0)'; fi" }.joined(separator: "; ")
        let runner = HookRunner(TaskHooks(onQueueEmpty: command + "; touch '\(dir)/ran'")) { _, _ in }
        runner.queueEmptied()
        #expect(runner.waitForHooks(seconds: 10))
        #expect(FileManager.default.fileExists(atPath: dir + "/ran"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["ran"])
    }

    @Test func theQueueHookIsToldWithoutATask() async throws {
        let reports = Locked<[String]>([])
        let runner = HookRunner(TaskHooks(onQueueEmpty: "true")) { id, text in reports.withLock { $0.append("\(id.map(String.init) ?? "queue") \(text)") } }
        runner.queueEmptied()
        runner.waitForHooks(seconds: 10)
        try await waitFor(reports, count: 1)
        #expect(reports.withLock { $0 } == ["queue on-queue-empty hook ran"])
    }
}

struct TaskCommandKeyTests {
    @Test func bangRunsTheConfiguredCommandOnTheSelectedRow() {
        var ui = UIState()
        var model = Model()
        model.apply(.added(id: 4, url: "http://h/a.iso", kind: .download, requestHeaders: [], at: 0))
        model.select(4)
        #expect(KeyHandler.handle(.character("!"), ui: &ui, model: &model).isEmpty)
        #expect(ui.message?.contains("no task-command") == true)
        ui.taskCommand = "echo \"$SLUICE_URL\""
        let commands = KeyHandler.handle(.character("!"), ui: &ui, model: &model)
        guard case .runCommand(let command, let task)? = commands.first else {
            Issue.record("no command: \(commands)")
            return
        }
        #expect(command == "echo \"$SLUICE_URL\"")
        #expect(task.environment["SLUICE_TASK_ID"] == "4" && task.environment["SLUICE_URL"] == "http://h/a.iso")
        #expect(task.environment["SLUICE_STATUS"] == model.row(4)?.stateWord, "a row under way says its state")
    }

    @Test func theCommandRunsWithTheRowsFacts() async throws {
        let out = NSTemporaryDirectory() + "sluice-bang-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: out) }
        let said = Locked<[String]>([])
        let task = EndedTask(id: 9, url: "http://h/x", file: "/tmp/x", outcome: .finished, httpStatus: 200, bytes: 5, error: nil)
        HookRunner.run("printf '%s %s' \"$SLUICE_TASK_ID\" \"$SLUICE_FILE\" > '\(out)'", for: task) { text in said.withLock { $0.append(text) } }
        for _ in 0..<250 where said.withLock({ $0.isEmpty }) { try await Task.sleep(nanoseconds: 20_000_000) }
        #expect(said.withLock { $0 } == ["task-command hook ran"])
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "9 /tmp/x")
    }
}
