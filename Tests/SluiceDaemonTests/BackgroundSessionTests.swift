// SessionConfiguration.background(identifier:) through BackgroundSession, on a real daemon process it starts
// itself: a download handed over is told to the delegate when it ends; tasks that end while no session listens
// are told to the next session, before backgroundSessionDidFinishEvents, and only once.
import Foundation
import SluiceDaemon
import SluiceEngine
import SluiceLock
import Testing

final class BackgroundRecorder: BackgroundSessionDelegate {
    let calls = Locked<[String]>([])

    func backgroundSession(_ session: BackgroundSession, task: BackgroundTask, didFinishDownloadingTo location: URL) {
        calls.withLock { $0.append("finished #\(task.taskIdentifier) \(location.path)") }
    }

    func backgroundSession(_ session: BackgroundSession, task: BackgroundTask, didCompleteWithError error: TransferError?) {
        calls.withLock { $0.append("complete #\(task.taskIdentifier) \(error.map { $0.code.rawValue } ?? "ok")") }
    }

    func backgroundSessionDidFinishEvents(_ session: BackgroundSession) {
        calls.withLock { $0.append("didFinishEvents") }
    }

    var all: [String] { calls.withLock { $0 } }
}

@Suite(.serialized, .enabled(if: DaemonFixture.binary != nil, "needs the built sluice executable"))
struct BackgroundSessionTests {
    @Test func tasksEndedWhileNobodyListenedAreToldToTheNextSessionOnce() async throws {
        let server = try DaemonServers.shared()
        try await withDaemon { fixture in
            var configuration = SessionConfiguration.background(identifier: "test")
            configuration.downloadDirectory = fixture.output
            let first = BackgroundRecorder()
            let session = try BackgroundSession(configuration: configuration, delegate: first, executable: DaemonFixture.binary,
                                                environment: fixture.environment)
            #expect(fixture.client.isAnswering, "opening the session started the daemon")
            try await fixture.waitUntil("the first session's snapshot") { first.all == ["didFinishEvents"] }

            // Live: a download handed over, told when it ends, then gone from the daemon's list.
            let task = try session.downloadTask(with: server.url("/bytes/3000?name=live.bin"))
            try await fixture.waitUntil("the live download told") { first.all.count == 3 }
            #expect(first.all == ["didFinishEvents", "finished #\(task.taskIdentifier) \(fixture.output)/live.bin", "complete #\(task.taskIdentifier) ok"])
            #expect(FileManager.default.contents(atPath: fixture.output + "/live.bin") == pattern(3000))
            try await fixture.waitForTasks { $0.isEmpty }

            // Nobody listens: one download finishes, one is cancelled.
            session.detach()
            let done = try fixture.client.send("POST", "/tasks", body: "{\"url\":\"\(server.url("/bytes/2000?name=away.bin"))\",\"directory\":\"\(fixture.output)\"}")
            let stalled = try fixture.client.send("POST", "/tasks", body: "{\"url\":\"\(server.url("/bytes/9000?stall=1000"))\",\"directory\":\"\(fixture.output)\"}")
            #expect(done.status == 201 && stalled.status == 201)
            try await fixture.waitForTasks { $0.count == 2 && $0.allSatisfy { ($0["bytes"] as? Int ?? 0) >= 1000 } }
            #expect(try fixture.client.send("POST", "/tasks/3/cancel").status == 200)
            try await fixture.waitForTasks { $0.allSatisfy { $0["outcome"] is String } }
            #expect(first.all.count == 3, "a detached session hears nothing more")

            // The next session hears both ends, then didFinishEvents; the daemon forgets them once told.
            let second = BackgroundRecorder()
            let again = try BackgroundSession(configuration: configuration, delegate: second, executable: DaemonFixture.binary,
                                              environment: fixture.environment)
            try await fixture.waitUntil("the held events told") { second.all.last == "didFinishEvents" }
            #expect(second.all == ["finished #2 \(fixture.output)/away.bin", "complete #2 ok", "complete #3 cancelled", "didFinishEvents"])
            try await fixture.waitForTasks { $0.isEmpty }
            again.detach()

            let third = BackgroundRecorder()
            let last = try BackgroundSession(configuration: configuration, delegate: third, executable: DaemonFixture.binary,
                                             environment: fixture.environment)
            try await fixture.waitUntil("the third session's snapshot") { !third.all.isEmpty }
            #expect(third.all == ["didFinishEvents"], "nothing is told twice")
            last.detach()
        }
    }

    @Test func aConfigurationWithoutAnIdentifierIsRefused() {
        #expect(throws: DaemonFailure.self) { try BackgroundSession(configuration: .default, delegate: nil) }
    }
}
