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
}
