// A daemon of its own for each test: a scratch runtime and state directory, the built `sluice` binary run as a
// separate process, a client on its socket, and a cleanup that stops (or kills) the daemon the test started.
import Dispatch
import Foundation
import SluiceDaemon
import SluiceScenarioServer
import Testing

enum DaemonServers {
    private static let started = Result { try ScenarioServer.start() }
    static func shared() throws -> ScenarioServer { try started.get() }
}

struct CommandResult {
    let status: Int32
    let output: String
    let error: String
}

final class DaemonFixture: Sendable {
    let root: String
    let paths: DaemonPaths
    let environment: [String: String]
    var output: String { root + "/out" }
    var client: DaemonClient { DaemonClient(socketPath: paths.socket) }

    /// The `sluice` executable `swift build` put beside this test bundle.
    static var binary: String? {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = bundle.deletingLastPathComponent()
        // On Linux the tests are one executable in .build/debug; elsewhere a bundle in it.
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("sluice").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }

    init() throws {
        let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((base + "/sluice-daemon-test-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ $0.baseAddress.flatMap { mkdtemp($0) } }) else {
            throw CocoaError(.fileWriteUnknown)
        }
        root = String(cString: made)
        for name in ["run", "state", "out", "config", "config/sluice"] { mkdir(root + "/" + name, 0o700) }
        // Not the developer's config; and an hour before a silent transfer times out, so that the downloads these
        // tests stall on purpose stay stalled however slow the machine (a retry after the 60 s default finished
        // them under AddressSanitizer on a slow machine).
        try "timeout = 3600\n".write(toFile: root + "/config/sluice/config.toml", atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = root + "/run"
        environment["XDG_STATE_HOME"] = root + "/state"
        environment["XDG_CONFIG_HOME"] = root + "/config"
        environment["SLUICE_CONFIG"] = nil
        self.environment = environment
        paths = try DaemonPaths(identifier: "test", environment: environment)
    }

    /// Runs `sluice ARGS --id test` from the output directory and waits for it (a daemon it starts runs on).
    func sluice(_ arguments: [String], withID: Bool = true) async throws -> CommandResult {
        let binary = try #require(Self.binary, "build the sluice executable first (swift build)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments + (withID ? ["--id", "test"] : [])
        process.environment = environment
        process.currentDirectoryURL = URL(fileURLWithPath: output)
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return await offThePool {
            let output = out.fileHandleForReading.readDataToEndOfFile()
            let error = err.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return CommandResult(status: process.terminationStatus, output: String(decoding: output, as: UTF8.self),
                                 error: String(decoding: error, as: UTF8.self))
        }
    }

    /// The daemon's pid, from its lock file; nil when none holds the lock.
    var daemonPID: pid_t? {
        guard DaemonLock.isHeld(paths.lock), let text = try? String(contentsOfFile: paths.lock, encoding: .utf8) else { return nil }
        return pid_t(text.filter(\.isNumber))
    }

    /// GET /tasks, decoded.
    func tasks() throws -> [[String: Any]] {
        let reply = try client.send("GET", "/tasks")
        #expect(reply.status == 200)
        return try #require(JSONSerialization.jsonObject(with: Data(reply.body.utf8)) as? [[String: Any]])
    }

    func task(_ id: Int) throws -> [String: Any]? { try tasks().first { $0["id"] as? Int == id } }

    /// Waits (at most `seconds`) for `condition` on the task list; the last list, for the assertions that follow.
    @discardableResult
    func waitForTasks(seconds: Double = 20, _ condition: ([[String: Any]]) -> Bool) async throws -> [[String: Any]] {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        while true {
            let list = try tasks()
            if condition(list) { return list }
            if DispatchTime.now().uptimeNanoseconds > deadline {
                Issue.record("the tasks never got there: \(list)")
                return list
            }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
    }

    /// Waits (at most `seconds`) until `condition` holds.
    func waitUntil(seconds: Double = 20, _ what: String, _ condition: () -> Bool) async throws {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        while !condition() {
            if DispatchTime.now().uptimeNanoseconds > deadline {
                Issue.record("timed out waiting until \(what)")
                return
            }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
    }

    /// Stops the daemon this test started (POST /stop, else kill -9 of its pid) and removes the scratch files.
    func tearDown() async {
        if client.isAnswering { _ = try? client.send("POST", "/stop", timeout: 5) }
        let deadline = DispatchTime.now().uptimeNanoseconds + 15_000_000_000
        while DaemonLock.isHeld(paths.lock) && DispatchTime.now().uptimeNanoseconds < deadline { try? await Task.sleep(nanoseconds: 20_000_000) }
        if let pid = daemonPID { kill(pid, SIGKILL) }
        try? FileManager.default.removeItem(atPath: root)
    }

    var log: String { (try? String(contentsOfFile: paths.log, encoding: .utf8)) ?? "" }
}

/// Runs blocking work on a thread of its own and awaits its result.
func offThePool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: work()) }
    }
}

/// The scenario server's body for /bytes/N.
func pattern(_ count: Int) -> Data { Data(ScenarioPattern.bytes(offset: 0, count: count)) }
