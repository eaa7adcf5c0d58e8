// `sluice add` with curl's request flags: the method, headers, credentials, cookies and body reach the server
// through the daemon; flags that set up a whole session are refused with a reason.
import Foundation
import SluiceScenarioServer
import Testing

@Suite(.serialized, .enabled(if: DaemonFixture.binary != nil, "needs the built sluice executable"))
struct DaemonAddRequestTests {
    @Test func requestFlagsReachTheServerThroughTheDaemon() async throws {
        let server = try DaemonServers.shared()
        try await withDaemon { fixture in
            let echo = try await fixture.sluice(["add", "-o", "echo.txt", "-X", "PUT", "-d", "a=b&c", server.url("/echo").absoluteString])
            #expect(echo.status == 0, "\(echo.error)")
            let headers = try await fixture.sluice(["add", "-o", "headers.txt", "-H", "X-Probe: yes", "-u", "user:pw", "-b", "k=v",
                                                    server.url("/headers").absoluteString])
            #expect(headers.status == 0, "\(headers.error)")
            try await fixture.waitForTasks { $0.count == 2 && $0.allSatisfy { $0["outcome"] as? String == "finished" } }
            #expect(try String(contentsOfFile: fixture.output + "/echo.txt", encoding: .utf8) == "a=b&c")
            let seen = try String(contentsOfFile: fixture.output + "/headers.txt", encoding: .utf8)
            for line in ["X-Probe: yes", "Authorization: Basic dXNlcjpwdw==", "Cookie: k=v"] {
                #expect(seen.contains(line + "\n"), "\(line) in \(seen)")
            }

            let insecure = try await fixture.sluice(["add", "-k", server.url("/bytes/10").absoluteString])
            #expect(insecure.status == 2)
            #expect(insecure.error.contains("-k set up a whole session"), "\(insecure.error)")
            let ask = try await fixture.sluice(["add", "--ask", server.url("/bytes/10").absoluteString])
            #expect(ask.status == 2 && ask.error.contains("--ask holds a data task's response"))
            #expect(try fixture.tasks().count == 2, "nothing refused was added")
        }
    }

    @Test func aPastedCurlCommandGlobsAndAListFile() async throws {
        let server = try DaemonServers.shared()
        try await withDaemon { fixture in
            let paste = "curl '\(server.url("/headers").absoluteString)' \\\n  -H 'X-From: paste' \\\n  -b 'sid=1' --compressed --http2"
            let pasted = try await fixture.sluice(["add", "--curl", paste, "-o", "pasted.txt"])
            #expect(pasted.status == 0, "\(pasted.error)")
            #expect(pasted.error.contains("chooses the HTTP version"), "the paste's --http2 is named, not silently dropped")
            let pattern = server.url("/bytes/").absoluteString + "[1-3]00"  // URL(...) would encode the brackets
            let globbed = try await fixture.sluice(["add", pattern, "-o", "g#1.bin"])
            #expect(globbed.status == 0, "\(globbed.error)")
            try "\(server.url("/bytes/40?name=listed.bin").absoluteString)\n".write(toFile: fixture.output + "/list.txt", atomically: true, encoding: .utf8)
            #expect(try await fixture.sluice(["add", "-i", "list.txt"]).status == 0)
            try await fixture.waitForTasks { $0.count == 5 && $0.allSatisfy { $0["outcome"] as? String == "finished" } }
            let seen = try String(contentsOfFile: fixture.output + "/pasted.txt", encoding: .utf8)
            #expect(seen.contains("X-From: paste\n") && seen.contains("Cookie: sid=1\n"), "\(seen)")
            for n in 1...3 {
                #expect(FileManager.default.contents(atPath: fixture.output + "/g\(n).bin")?.count == n * 100)
            }
            #expect(FileManager.default.contents(atPath: fixture.output + "/listed.bin")?.count == 40)
        }
    }
}
