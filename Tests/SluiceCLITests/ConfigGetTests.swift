// `sluice get --config FILE` against the scenario server: a host rule's headers arrive, a -H replaces one.
import Foundation
import Testing
@testable import SluiceCLI

@Suite struct ConfigGetTests {
    @Test func aHostRulesHeaderArrivesAndMinusHOverridesIt() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let file = dir.path + "/config.toml"
        try """
            [hosts."127.0.0.1"]
            user-agent = "rule-agent/1"
            headers = { X-Rule = "from the rule", X-Both = "rule" }
            [hosts."elsewhere.example"]
            headers = ["X-Elsewhere: no"]
            """.write(toFile: file, atomically: true, encoding: .utf8)
        let url = server.url("/headers").absoluteString

        let failure = await runGet([url, "--config", file, "-o", dir.path + "/a"])
        #expect(failure == nil, "\(failure?.message ?? "")")
        let seen = try String(contentsOfFile: dir.path + "/a", encoding: .utf8)
        #expect(seen.contains("X-Rule: from the rule\n"), "\(seen)")
        #expect(seen.contains("X-Both: rule\n"))
        #expect(seen.contains("User-Agent: rule-agent/1\n"))
        #expect(!seen.contains("X-Elsewhere"))

        let typed = await runGet([url, "--config", file, "-H", "x-both: typed", "-H",
                                  "User-Agent: typed-agent", "-o", dir.path + "/b"])
        #expect(typed == nil, "\(typed?.message ?? "")")
        let overridden = try String(contentsOfFile: dir.path + "/b", encoding: .utf8)
        #expect(overridden.contains("x-both: typed\n") && !overridden.contains("X-Both: rule"), "\(overridden)")
        #expect(overridden.contains("User-Agent: typed-agent\n") && !overridden.contains("rule-agent"))
        #expect(overridden.contains("X-Rule: from the rule\n"))
    }

    /// A paste counts as typed: its --retry wins over the file's `retry`, which fills only what nothing gave.
    @Test func aPastesRetryWinsOverTheFiles() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let file = dir.path + "/config.toml"
        try "retry = 0\n".write(toFile: file, atomically: true, encoding: .utf8)
        let path = "/flaky/100?key=\(UUID().uuidString)&fail=1&status=503"
        let url = server.url(path).absoluteString
        let failure = await runGet(["--config", file, "--curl", "curl --retry 1 --retry-delay 0.1 '\(url)'", "-o", dir.path + "/f"])
        #expect(failure == nil, "\(failure?.message ?? "")")
        #expect(server.requestCount(path) == 2, "the file's retry = 0 would have stopped after the 503")
    }

    @Test func aBrokenFileStopsBeforeAnyTransfer() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let file = dir.path + "/config.toml"
        try "jobs = 2\n[hosts.\"127.0.0.1\"]\nheaders = { X-A = \"1\" \n".write(toFile: file, atomically: true, encoding: .utf8)
        let path = "/headers?broken-config-\(UUID().uuidString)"
        let failure = await runGet([server.url(path).absoluteString, "--config", file, "-o", dir.path + "/out"])
        #expect(failure?.message == "config: \(file):3: headers: unterminated inline table (it must close on its line)")
        #expect(server.requestCount(path) == 0, "nothing was sent")
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/out"))
    }
}
