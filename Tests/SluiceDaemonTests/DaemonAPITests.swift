// The socket's endpoints as docs/api.md lists them, driven on a real daemon process: add, suspend, resume, cancel,
// remove (from the history too), limits, and the event stream replayed from a position and followed live.
import Foundation
import SluiceDaemon
import SluiceScenarioServer
import SluiceLock
import Testing

@Suite(.serialized, .enabled(if: DaemonFixture.binary != nil, "needs the built sluice executable"))
struct DaemonAPITests {
    private func json(_ reply: DaemonResponse) -> [String: Any] {
        ((try? JSONSerialization.jsonObject(with: Data(reply.body.utf8))) as? [String: Any]) ?? [:]
    }

    @Test func controlRemoveAndLimits() async throws {
        let server = try DaemonServers.shared()
        try await withDaemon { fixture in
            #expect(try await fixture.sluice(["daemon"]).status == 0)
            let client = fixture.client
            let stalled = server.url("/bytes/500000?stall=100000").absoluteString
            let first = try client.send("POST", "/tasks", body: "{\"url\":\"\(stalled)\",\"directory\":\"\(fixture.output)\"}")
            #expect(first.status == 201)
            #expect(json(first)["id"] as? Int == 1)
            let second = try client.send("POST", "/tasks", body: "{\"url\":\"\(stalled)&n=2\",\"output\":\"\(fixture.output)/two\"}")
            #expect(json(second)["id"] as? Int == 2)
            try await fixture.waitForTasks { $0.count == 2 && $0.allSatisfy { $0["bytes"] as? Int == 100_000 } }

            #expect(try client.send("POST", "/tasks/1/suspend").status == 200)
            try await fixture.waitForTasks { $0.first?["state"] as? String == "suspended" }
            let again = try client.send("POST", "/tasks/1/suspend")
            #expect(again.status == 409)
            #expect(json(again)["error"] as? String == "#1 is suspended, not running")
            #expect(try client.send("POST", "/tasks/1/resume").status == 200)
            try await fixture.waitForTasks { $0.first?["state"] as? String == "running" }
            #expect(try client.send("POST", "/tasks/1/cancel").status == 200)
            try await fixture.waitForTasks { $0.first { $0["id"] as? Int == 1 }?["outcome"] as? String == "cancelled" }

            let running = try client.send("DELETE", "/tasks/2")
            #expect(running.status == 409)
            #expect(json(running)["error"] as? String == "#2 is running: cancel it before removing it (sluice cancel 2)")
            #expect(try client.send("DELETE", "/tasks/1").status == 200)
            #expect(try fixture.tasks().map { $0["id"] as? Int } == [2])
            #expect(try client.send("DELETE", "/tasks/1").status == 404)
            #expect(try client.send("POST", "/tasks/9/resume").status == 404)
            #expect(try client.send("POST", "/tasks/2/jump").status == 404)

            #expect(json(try client.send("POST", "/limits", body: "{\"jobs\":1}"))["jobs"] as? Int == 1)
            #expect(try client.send("POST", "/limits", body: "{\"jobs\":0}").status == 400)
            #expect(try client.send("POST", "/tasks", body: "{\"url\":\"\(stalled)\",\"output\":\"relative\"}").status == 400)
            #expect(try client.send("POST", "/tasks", body: "{\"url\":\"nonsense\"}").status == 422)
            #expect(try client.send("PUT", "/tasks").status == 405)
            #expect(try client.send("GET", "/nothing").status == 404)

            // A restart brings back #2 (unfinished) and not #1 (removed from the history too).
            #expect(try await fixture.sluice(["stop"]).status == 0)
            #expect(try await fixture.sluice(["daemon"]).status == 0)
            let listed = try await fixture.sluice(["ls", "--json"])
            let rows = try #require(JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]])
            #expect(rows.map { $0["id"] as? Int } == [2])
        }
    }

    @Test func aDataTaskConvertedBecomesADownloadInTheOutputDirectory() async throws {
        let server = try DaemonServers.shared()
        try await withDaemon { fixture in
            #expect(try await fixture.sluice(["daemon"]).status == 0)
            let gate = UUID().uuidString  // held after its first chunk: the conversion meets it under way
            let slow = server.url("/drip?bytes=20000&chunk=1000&interval=50&gate=\(gate)").absoluteString
            #expect(try fixture.client.send("POST", "/tasks", body: "{\"url\":\"\(slow)\",\"kind\":\"data\"}").status == 201)
            try await fixture.waitForTasks { ($0.first?["bytes"] as? Int ?? 0) > 0 }
            let converted = try fixture.client.send("POST", "/tasks/1/convert")
            #expect(converted.status == 200, "\(converted.body)")
            server.openGate(gate)
            let list = try await fixture.waitForTasks { $0.count == 2 && $0.last?["outcome"] as? String == "finished" }
            #expect(list.first?["state"] as? String == "converted")
            #expect(list.last?["kind"] as? String == "download")
            let saved = try #require(list.last?["saved"] as? String)
            #expect(saved.hasPrefix(fixture.output + "/"))
            #expect(FileManager.default.contents(atPath: saved)?.count == 20000)
            #expect(try fixture.client.send("POST", "/tasks/2/convert").status == 409)
        }
    }

    @Test func eventsReplayFromAPositionAndFollowLive() async throws {
        let server = try DaemonServers.shared()
        try await withDaemon { fixture in
            let first = server.url("/bytes/1000").absoluteString
            #expect(try await fixture.sluice(["add", first]).status == 0)
            try await fixture.waitForTasks { $0.first?["outcome"] as? String == "finished" }

            // Followed from the start while another task is added: the replay, then the new task's events live.
            let client = fixture.client
            let later = server.url("/bytes/2000").absoluteString
            let seen = Locked<[String]>([])
            let follower = Thread { _ = try? client.events(from: 1, timeout: 20) { line in
                seen.withLock { $0.append(line) }
                return !line.contains("\"event\":\"saved\"") || !line.contains("/2000\"")
            } }
            follower.start()
            try await fixture.waitUntil("the replay arrives") { seen.withLock { $0.contains { $0.contains("\"event\":\"saved\"") } } }
            #expect(try client.send("POST", "/tasks", body: "{\"url\":\"\(later)\",\"directory\":\"\(fixture.output)\"}").status == 201)
            try await fixture.waitUntil("the live events arrive") { seen.withLock { $0.last?.contains("/2000\"") == true } }
            let lines = seen.withLock { $0 }
            let objects = lines.compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
            #expect(objects.count == lines.count, "every line is one JSON object")
            #expect(objects.map { $0["seq"] as? Int } == Array(1...objects.count).map { Optional($0) })
            #expect(objects.first?["event"] as? String == "added")
            #expect(objects.contains { $0["row"] as? Int == 2 && $0["event"] as? String == "added" && $0["url"] as? String == later })
            let response = try #require(objects.first { $0["row"] as? Int == 1 && $0["event"] as? String == "didReceiveResponse" })
            #expect(response["status"] as? Int == 200, "in the shape of --trace")
            #expect(response["task"] as? Int == 1)

            // From a position: the lines numbered 4 and later, nothing before.
            var from4: [Int] = []
            _ = try client.events(from: 4, timeout: 5) { line in
                from4.append(((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any])?["seq"] as? Int ?? -1)
                return from4.count < 3
            }
            #expect(from4 == [4, 5, 6])
        }
    }
}
