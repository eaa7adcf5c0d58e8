// The real daemon process, started by the real commands, driven through its socket: transfers that go on with
// no UI, kill -9 and recovery, a stale socket, a second daemon, another user.
import Foundation
import SluiceDaemon
import SluiceScenarioServer
import Testing

@Suite(.serialized, .enabled(if: DaemonFixture.binary != nil, "needs the built sluice executable"))
struct DaemonProcessTests {
    @Test func addedDownloadsFinishWithNoUIAndLsSeesThem() async throws {
        let server = try DaemonServers.shared()
        try await withDaemon { fixture in
            // A slow one, held after its first chunk until the test lets it go: it outlives the `sluice add` that
            // handed it over however long the daemon takes to start (over 20 s on a loaded machine).
            let gate = UUID().uuidString
            let slow = server.url("/drip?bytes=30000&chunk=300&interval=20&gate=\(gate)").absoluteString
            let quick = server.url("/bytes/200000").absoluteString
            let added = try await fixture.sluice(["add", slow, quick, "--output-dir", "."])
            #expect(added.status == 0, "\(added.error)")
            #expect(added.output == "#1  \(slow)\n#2  \(quick)\n")
            #expect(fixture.daemonPID != nil, "sluice add started the daemon")
            // The command has returned; the slow one is still under way, in the daemon alone.
            let first = try fixture.task(1)
            #expect(first?["outcome"] is NSNull, "\(String(describing: first))")
            server.openGate(gate)

            let list = try await fixture.waitForTasks(seconds: 60) { $0.count == 2 && $0.allSatisfy { $0["outcome"] as? String == "finished" } }
            let saved = list.compactMap { $0["saved"] as? String }.sorted()
            #expect(saved == [fixture.output + "/200000", fixture.output + "/drip"])
            #expect(FileManager.default.contents(atPath: fixture.output + "/200000") == pattern(200_000))
            #expect(FileManager.default.contents(atPath: fixture.output + "/drip")?.count == 30000)
            #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.output).sorted() == ["200000", "drip"])

            let ls = try await fixture.sluice(["ls"])
            #expect(ls.status == 0)
            #expect(ls.output.contains("#1  finished  29.3 KiB  \(slow)  saved \(fixture.output)/drip\n"), "\(ls.output)")
            #expect(ls.output.contains("#2  finished  195 KiB of 195 KiB  \(quick)  saved \(fixture.output)/200000\n"))
            let json = try await fixture.sluice(["ls", "--json"])
            let rows = try #require(JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]])
            #expect(rows.map { $0["state"] as? String } == ["finished", "finished"])
            #expect(fixture.log.contains("saved #2 to \(fixture.output)/200000"))
        }
    }

    @Test func killNineThenLsRestartsItAndTheDownloadResumesByteIdentical() async throws {
        let server = try DaemonServers.shared()
        try await withDaemon { fixture in
            let size = 3_000_000, stall = 1_000_000
            // The server sends `stall` bytes and then nothing, until a Range request asks for the rest.
            let url = server.url("/bytes/\(size)?stall=\(stall)").absoluteString
            let added = try await fixture.sluice(["add", url, "-o", "big.bin"])
            #expect(added.status == 0, "\(added.error)")
            let target = fixture.output + "/big.bin"
            try await fixture.waitForTasks { ($0.first?["bytes"] as? Int) == stall }
            // The checkpoint of a download that went quiet: without it a restart would start over and stall again.
            try await fixture.waitUntil("the checkpoint is written") { FileManager.default.fileExists(atPath: target + ".sluice-resume") }
            let first = try #require(fixture.daemonPID)
            kill(first, SIGKILL)
            try await fixture.waitUntil("the killed daemon lets go of its lock") { !DaemonLock.isHeld(fixture.paths.lock) }
            #expect(FileManager.default.fileExists(atPath: fixture.paths.socket), "kill -9 leaves the socket behind")

            // A listing starts nothing; a start resumes what the killed daemon left.
            let ls = try await fixture.sluice(["ls"])
            #expect(ls.status == 1 && ls.error.contains("no sluice daemon is running for test"), "\(ls.error)")
            #expect(fixture.daemonPID == nil)
            let restarted = try await fixture.sluice(["daemon"])
            #expect(restarted.status == 0, "\(restarted.error)")
            let second = try #require(fixture.daemonPID)
            #expect(second != first)
            let list = try await fixture.waitForTasks { $0.first?["outcome"] as? String == "finished" }
            #expect(list.count == 1)
            #expect(list.first?["saved"] as? String == target)
            #expect(FileManager.default.contents(atPath: target) == pattern(size))
            #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.output) == ["big.bin"])
            // It went on from the checkpoint with a Range request, not from the start.
            var resumedAt: Int?
            _ = try fixture.client.events(from: 1, timeout: 5) { line in
                guard line.contains("\"event\":\"didResumeAtOffset\"") else { return true }
                resumedAt = (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["offset"] as? Int
                return false
            }
            #expect(resumedAt == stall)
            #expect(fixture.log.contains("removed the socket a stopped daemon left behind"))
        }
    }

    @Test func aStaleSocketAndLockAreRecovered() async throws {
        let server = try DaemonServers.shared()
        try await withDaemon { fixture in
            try fixture.paths.prepareRuntimeDirectory()
            // A socket nobody listens on any more, and a lock file naming a process that is gone.
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            #expect(bindUnix(fd, fixture.paths.socket))
            close(fd)
            #expect(FileManager.createFile(atPath: fixture.paths.lock, contents: Data("999999\n".utf8)))
            #expect(!fixture.client.isAnswering)

            let added = try await fixture.sluice(["add", server.url("/bytes/1000").absoluteString])
            #expect(added.status == 0, "\(added.error)")
            #expect(fixture.client.isAnswering)
            try await fixture.waitForTasks { $0.first?["outcome"] as? String == "finished" }
            #expect(FileManager.default.contents(atPath: fixture.output + "/1000") == pattern(1000))
        }
    }

    @Test func cookiesAreKeptWithTheDaemonsStoreAcrossARestart() async throws {
        let server = try DaemonServers.shared()
        try await withDaemon { fixture in
            let set = server.url("/cookies/set?daemonkeep=yes&attributes=%3B%20Max-Age%3D3600").absoluteString
            #expect(try await fixture.sluice(["add", "--data-task", set]).status == 0)
            _ = try await fixture.waitForTasks { $0.count == 1 && $0[0]["outcome"] as? String == "finished" }
            #expect(try await fixture.sluice(["stop"]).status == 0)
            // A new daemon: the cookie comes from the file kept beside its store, not from memory.
            let echo = server.url("/cookies").absoluteString
            let added = try await fixture.sluice(["add", echo, "-o", fixture.output + "/echo.txt"])
            #expect(added.status == 0, "\(added.error)")
            _ = try await fixture.waitForTasks { $0.contains { $0["saved"] as? String == fixture.output + "/echo.txt" } }
            let echoed = try String(contentsOfFile: fixture.output + "/echo.txt", encoding: .utf8)
            #expect(echoed == "cookie: daemonkeep=yes\n", "\(echoed)")
        }
    }

    @Test func aSecondDaemonIsRefusedByTheLock() async throws {
        try await withDaemon { fixture in
            let started = try await fixture.sluice(["daemon"])
            #expect(started.status == 0, "\(started.error)")
            #expect(started.output == "sluice daemon started: \(fixture.paths.socket)\n")
            let pid = try #require(fixture.daemonPID)

            let second = try await fixture.sluice(["daemon", "--foreground"])
            #expect(second.status == DaemonRunner.alreadyRunningStatus)
            #expect(second.error == "sluice: a daemon is already running for test (pid \(pid))\n")
            let again = try await fixture.sluice(["daemon"])
            #expect(again.output == "sluice daemon already running: \(fixture.paths.socket)\n")
            #expect(fixture.daemonPID == pid)
            #expect(fixture.client.isAnswering)

            let stopped = try await fixture.sluice(["stop"])
            #expect(stopped.output == "sluice daemon stopped\n")
            #expect(!FileManager.default.fileExists(atPath: fixture.paths.socket))
            #expect(fixture.daemonPID == nil)
        }
    }

    /// A stopping daemon waits for a hook still running (up to its timeout); a second SIGTERM ends that wait, and
    /// the hook, at once. (Before, the daemon waited the hook out: about 30 s here.)
    @Test func aSecondSignalEndsTheWaitForAHookWhileTheDaemonStops() async throws {
        let server = try DaemonServers.shared()
        try await withDaemon { fixture in
            let marker = fixture.root + "/hook.pid"
            // Longer than a starved full run can take to get here (30 s was not: the hook had ended, and the daemon with it).
            let hook = "echo $$ > '\(marker)'; exec sleep 600"
            #expect(try await fixture.sluice(["daemon", "--on-complete", hook, "--hook-timeout", "600"]).status == 0)
            let added = try await fixture.sluice(["add", server.url("/bytes/1000").absoluteString])
            #expect(added.status == 0, "\(added.error)")
            // The shell makes the file before it writes the number: wait for the number (a loaded run read it empty).
            let written = { pid_t((try? String(contentsOfFile: marker, encoding: .utf8))?.filter(\.isNumber) ?? "") }
            try await fixture.waitUntil("the hook is running") { written() != nil }
            let hookPID = try #require(written())
            defer { kill(hookPID, SIGKILL) }  // whatever the test found, no sleep is left behind
            let daemon = try #require(fixture.daemonPID)
            kill(daemon, SIGTERM)
            try await fixture.waitUntil("the daemon stops serving") { !fixture.client.isAnswering }
            #expect(DaemonLock.isHeld(fixture.paths.lock), "still waiting for its hook")
            kill(daemon, SIGTERM)
            try await fixture.waitUntil(seconds: 3, "the daemon ends") { !DaemonLock.isHeld(fixture.paths.lock) }
            // The hook's process is gone (or a zombie nobody has reaped yet).
            try await fixture.waitUntil(seconds: 3, "the hook is stopped") {
                let state = (try? String(contentsOfFile: "/proc/\(hookPID)/stat", encoding: .utf8))?.split(separator: " ").dropFirst(2).first
                return state == nil || state == "Z"
            }
        }
    }

    @Test(.enabled(if: getuid() == 0, "needs root to run a client as another user"),
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
                       && FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"), "needs setpriv and curl"))
    func anotherUsersConnectionGets403() async throws {
        try await withDaemon { fixture in
            #expect(try await fixture.sluice(["daemon"]).status == 0)
            // The directory (0700) already keeps other users out; open it up so that only the uid check stands.
            for path in [fixture.root, fixture.root + "/run", fixture.paths.runtimeDirectory] { chmod(path, 0o711) }
            chmod(fixture.paths.socket, 0o666)
            let curl = Process()
            curl.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            curl.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/curl", "-s", "-m", "10",
                              "-w", "\n%{http_code}", "--unix-socket", fixture.paths.socket, "http://localhost/tasks"]
            let out = Pipe()
            curl.standardOutput = out
            try curl.run()
            let text = await offThePool { String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) }
            curl.waitUntilExit()
            #expect(curl.terminationStatus == 0, "the daemon answered and closed")
            #expect(text == "{\"error\":\"this daemon serves only its own user\"}\n\n403")
            #expect(fixture.log.contains("refused a connection from uid 65534"))
            // Its own user is still served.
            #expect(try fixture.client.send("GET", "/tasks").status == 200)
        }
    }
}

/// Runs `body` with a fixture of its own and stops its daemon afterwards, whatever happened.
func withDaemon(_ body: (DaemonFixture) async throws -> Void) async throws {
    let fixture = try DaemonFixture()
    do {
        try await body(fixture)
    } catch {
        await fixture.tearDown()
        throw error
    }
    await fixture.tearDown()
}

extension FileManager {
    static func createFile(atPath path: String, contents: Data) -> Bool {
        FileManager.default.createFile(atPath: path, contents: contents)
    }
}

/// bind(2) of a Unix socket path.
func bindUnix(_ fd: Int32, _ path: String) -> Bool {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        raw.copyBytes(from: bytes)
        raw[bytes.count] = 0
    }
    return withUnsafePointer(to: &address) { a in
        a.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0 }
    }
}
