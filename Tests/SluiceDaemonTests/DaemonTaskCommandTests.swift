// `sluice pause`, `resume` and `rm` on a real daemon: all at once or by id; --purge deletes the saved file, and only
// a task that has ended can be removed.
import Foundation
import SluiceScenarioServer
import Testing

@Suite(.serialized, .enabled(if: DaemonFixture.binary != nil, "needs the built sluice executable"))
struct DaemonTaskCommandTests {
    @Test func pauseAllResumeOneAndPurge() async throws {
        let server = try DaemonServers.shared()
        try await withDaemon { fixture in
            #expect(try await fixture.sluice(["pause", "--all"]).status == 1, "no daemon: said, not started")
            let stalled = server.url("/bytes/500000?stall=100000").absoluteString
            #expect(try await fixture.sluice(["add", stalled, stalled + "&n=2", server.url("/bytes/3000?name=done.bin").absoluteString]).status == 0)
            try await fixture.waitForTasks { $0.count == 3 && $0[2]["outcome"] as? String == "finished" && ($0[0]["bytes"] as? Int) == 100_000 }
            #expect(FileManager.default.fileExists(atPath: fixture.output + "/done.bin"))

            let paused = try await fixture.sluice(["pause", "--all"])
            #expect(paused.status == 0 && paused.output == "suspended 2 tasks\n", "\(paused.output)\(paused.error)")
            try await fixture.waitForTasks { $0.prefix(2).allSatisfy { $0["state"] as? String == "suspended" } }
            #expect(try await fixture.sluice(["resume", "1"]).status == 0)
            try await fixture.waitForTasks { $0.count >= 2 && $0[0]["state"] as? String == "running" && $0[1]["state"] as? String == "suspended" }

            let running = try await fixture.sluice(["rm", "--purge", "1"])
            #expect(running.status == 1 && running.error.contains("cancel it before removing it"))
            let purged = try await fixture.sluice(["rm", "--purge", "3"])
            #expect(purged.status == 0, "\(purged.error)")
            #expect(purged.output.contains("deleted \(fixture.output)/done.bin"), "\(purged.output)")
            #expect(!FileManager.default.fileExists(atPath: fixture.output + "/done.bin"))
            #expect(try fixture.tasks().map { $0["id"] as? Int } == [1, 2])

            #expect(try await fixture.sluice(["pause"]).status == 2, "no id and no --all")
            #expect(try await fixture.sluice(["rm", "--finished", "--purge"]).status == 2)
            #expect(try await fixture.sluice(["cancel"]).status == 2, "no id")
            let cancelled = try await fixture.sluice(["cancel", "2"])
            #expect(cancelled.status == 0, "\(cancelled.error)")
            try await fixture.waitForTasks { $0.count >= 2 && $0[1]["outcome"] as? String == "cancelled" }  // a failed step: no crash
            let cleared = try await fixture.sluice(["rm", "--finished"])
            #expect(cleared.status == 0)
            #expect(try fixture.tasks().map { $0["id"] as? Int } == [1])
        }
    }
}
