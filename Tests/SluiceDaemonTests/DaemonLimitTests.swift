// `sluice daemon --limit-rate` limits all its transfers together; `sluice add --limit-rate` gives each added task
// its own limit (GET /tasks shows it as `limit`). Before, neither flag existed: a rate limit for the daemon was only
// a key in the attached UI or a POST to its socket.
import Foundation
import SluiceDaemon
import Testing

@Suite(.serialized, .enabled(if: DaemonFixture.binary != nil, "needs the built sluice executable"))
struct DaemonLimitTests {
    @Test func theDaemonsLimitAndEachAddedTasksOwn() async throws {
        let server = try DaemonServers.shared()
        try await withDaemon { fixture in
            let started = try await fixture.sluice(["daemon", "--limit-rate", "1M"])
            #expect(started.status == 0, "\(started.error)")
            #expect(fixture.log.contains("limit=1048576"), "\(fixture.log)")
            let stalled = server.url("/bytes/500000?stall=100000").absoluteString
            let added = try await fixture.sluice(["add", "--limit-rate", "100K", stalled, "-o", "f.bin"])
            #expect(added.status == 0, "\(added.error)")
            let tasks = try await fixture.waitForTasks { $0.first?["limit"] as? Int == 102_400 }
            #expect(tasks.count == 1)
            let refused = try await fixture.sluice(["add", "--limit-rate", "-5", stalled])
            #expect(refused.status == 2 && refused.error.contains("--limit-rate: not a speed: -5"), "\(refused.error)")
            #expect(try fixture.tasks().count == 1, "nothing added by a refused line")
        }
    }

    @Test func aDaemonLimitThatIsNoSpeedIsRefusedBeforeAnythingStarts() async throws {
        try await withDaemon { fixture in
            let refused = try await fixture.sluice(["daemon", "--limit-rate", "fast"])
            #expect(refused.status == 2 && refused.error.contains("not a speed: fast"), "\(refused.error)")
            #expect(fixture.daemonPID == nil)
        }
    }
}
