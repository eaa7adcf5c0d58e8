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

    /// The config file's jobs, limit-rate and per-host hold for the daemon as for `sluice -d`, and a flag given
    /// wins (found by a tester: `sluice config` listed them in force; the daemon ran 6 at once, unlimited).
    @Test func theConfigFilesLimitsHoldUnlessGiven() async throws {
        try await withDaemon { fixture in
            try "timeout = 3600\njobs = 2\nper-host = 1\nlimit-rate = \"1M\"\n"
                .write(toFile: fixture.root + "/config/sluice/config.toml", atomically: true, encoding: .utf8)
            let started = try await fixture.sluice(["daemon"])
            #expect(started.status == 0, "\(started.error)")
            let log = fixture.log
            #expect(log.contains("jobs=2") && log.contains("limit=1048576") && log.contains("per-host=1"), "\(log)")
        }
        try await withDaemon { fixture in
            try "timeout = 3600\njobs = 2\nlimit-rate = \"1M\"\n"
                .write(toFile: fixture.root + "/config/sluice/config.toml", atomically: true, encoding: .utf8)
            let started = try await fixture.sluice(["daemon", "-j", "3", "--limit-rate", "2M"])
            #expect(started.status == 0, "\(started.error)")
            let log = fixture.log
            #expect(log.contains("jobs=3") && log.contains("limit=2097152") && log.contains("per-host=none"), "\(log)")
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
