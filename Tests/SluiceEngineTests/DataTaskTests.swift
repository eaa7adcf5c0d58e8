// Data tasks against the real scenario server: the delegate flow, holds, suspend, cancel, multipart.
import Foundation
@testable import SluiceEngine
import SluiceScenarioServer
import Synchronization
import SluiceLock
import Testing

@Suite struct DataTaskTests {
    func makeSession(_ recorder: Recorder, log: EventLog? = nil,
                     configure: (inout SessionConfiguration) -> Void = { _ in }) -> Session {
        var configuration = SessionConfiguration.default
        configure(&configuration)
        return Session(configuration: configuration, delegate: recorder, delegateQueue: recorder.queue,
                       eventMonitor: log?.monitor)
    }

    @Test func largeBodyArrivesWholeAndInOrder() async throws {
        let server = try Servers.shared()
        let recorder = Recorder()
        let session = makeSession(recorder)
        defer { session.finishTasksAndInvalidate() }
        let size = 24 << 20
        let task = session.dataTask(with: server.url("/bytes/\(size)"))
        #expect(task.state == .suspended)
        #expect(task.countOfBytesExpectedToReceive == -1)
        task.resume()
        #expect(task.state == .running)
        guard await recorder.waitForCompletion() else { return }
        let s = recorder.snapshot
        #expect(s.error == nil)
        #expect(s.body.count == size)
        #expect(s.body == patternBytes(count: size))
        #expect(task.state == .completed)
        #expect(task.countOfBytesReceived == Int64(size))
        #expect(task.countOfBytesExpectedToReceive == Int64(size))
        #expect(s.calls.first == "response")
        #expect(s.calls.last == "complete")
        #expect(s.completions == 1)
        #expect(s.offQueueCalls == 0)
        session.finishTasksAndInvalidate()
    }

    @Test func chunkedBodyHasUnknownLength() async throws {
        let server = try Servers.shared()
        let recorder = Recorder()
        let session = makeSession(recorder)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: server.url("/bytes/100000?chunked=1"))
        task.resume()
        guard await recorder.waitForCompletion() else { return }
        let s = recorder.snapshot
        #expect(s.responses.first?.expectedContentLength == -1)
        #expect(task.countOfBytesExpectedToReceive == -1)
        #expect(s.body == patternBytes(count: 100_000))
    }

    @Test func noBodyByteBeforeTheDispositionEvenWhenItComesLate() async throws {
        let server = try Servers.shared()
        let recorder = Recorder(plan: { _ in nil })  // hold the handler
        let log = EventLog()
        let session = makeSession(recorder, log: log)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: server.url("/bytes/300000"))
        task.resume()
        #expect(await eventually { !recorder.snapshot.heldHandlers.isEmpty })
        // The whole body is on its way; give it every chance to leak while the handler is held.
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(recorder.snapshot.body.isEmpty)
        #expect(task.countOfBytesReceived == 0)
        #expect(!log.names.contains("didReceiveData"))
        // Answer from another thread, as the delegate may.
        let handler = recorder.snapshot.heldHandlers[0]
        DispatchQueue.global().async { handler(.allow) }
        guard await recorder.waitForCompletion() else { return }
        #expect(recorder.snapshot.body == patternBytes(count: 300_000))
        let names = log.names
        let disposition = names.firstIndex(of: "disposition") ?? names.count
        let firstData = names.firstIndex(of: "didReceiveData") ?? -1
        #expect(disposition < firstData)
        #expect(log.events.contains(.disposition(.allow)))
        #expect(names.last == "didCompleteWithError")
    }

    @Test func cancelDispositionCancelsWithoutData() async throws {
        let server = try Servers.shared()
        let recorder = Recorder(plan: { _ in .cancel })
        let session = makeSession(recorder)
        defer { session.finishTasksAndInvalidate() }
        session.dataTask(with: server.url("/bytes/100000")).resume()
        guard await recorder.waitForCompletion() else { return }
        let s = recorder.snapshot
        #expect(s.error?.code == .cancelled)
        #expect(s.body.isEmpty)
        #expect(s.calls == ["response", "complete"])
    }

    @Test func becomeDownloadWithADataOnlyDelegateStillCompletesOnce() async throws {
        let server = try Servers.shared()
        let recorder = Recorder(plan: { _ in .becomeDownload })
        let session = makeSession(recorder)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: server.url("/bytes/1000"))
        task.resume()
        guard await recorder.waitForCompletion() else { return }
        #expect(recorder.snapshot.error == nil)
        #expect(recorder.snapshot.body.isEmpty)
        #expect(recorder.snapshot.completions == 1)
        #expect(task.state == .completed)
    }

    @Test func suspendReallyPausesAndResumeContinuesTheSameRequest() async throws {
        let server = try Servers.shared()
        // Suspended from the delegate itself at 600 bytes, so the test's own scheduling cannot let the drip finish
        // first (parallel tests can starve a polling test for a second).
        let suspended = Locked(false)
        let recorder = Recorder(onData: { task, _ in
            if task.countOfBytesReceived >= 600, !suspended.withLock({ $0 }) {
                task.suspend()
                suspended.withLock { $0 = true }
            }
        })
        let log = EventLog()
        let session = makeSession(recorder, log: log)
        defer { session.finishTasksAndInvalidate() }
        let path = "/drip?bytes=20000&chunk=200&interval=10&test=suspend"  // 1 s of drip: room to suspend mid-way
        let task = session.dataTask(with: server.url(path))
        task.resume()
        #expect(await eventually { suspended.withLock { $0 } })
        #expect(task.state == .suspended)
        let atSuspend = recorder.snapshot.body.count
        // The server keeps dripping; none of it may reach the delegate while suspended.
        try await Task.sleep(nanoseconds: 400_000_000)
        #expect(recorder.snapshot.body.count == atSuspend)
        task.resume()
        guard await recorder.waitForCompletion() else { return }
        let s = recorder.snapshot
        #expect(s.error == nil)
        #expect(s.body == patternBytes(count: 20000))   // nothing lost, nothing twice
        #expect(server.requestCount(path) == 1)  // no second request
        let states = log.events.compactMap { if case .stateChanged(let s) = $0 { s } else { nil } }
        #expect(states == [.running, .suspended, .running, .completed])
    }

    /// Suspended from the delegate at its first chunk while the rest of the body pours in: the transfer may end
    /// before the loop hears of the suspension, and still neither a byte nor the completion may reach the
    /// delegate before `resume()` (the soak found 12 of 50 such tasks completing while suspended). A run whose
    /// task had already ended before the suspension (so `suspend()` was rightly ignored) proves nothing and is
    /// not counted.
    @Test(arguments: 0..<12) func aTaskSuspendedAsItEndsCompletesOnlyOnResume(_ run: Int) async throws {
        let server = try Servers.shared()
        let once = Locked(false)
        let recorder = Recorder(onData: { task, _ in
            if !once.withLock({ done in defer { done = true }; return done }) { task.suspend() }
        })
        let session = makeSession(recorder)
        defer { session.finishTasksAndInvalidate() }
        let size = 256_000 + run * 250_000
        let task = session.dataTask(with: server.url("/bytes/\(size)?run=\(run)"))
        task.resume()
        #expect(await eventually { task.state == .suspended || task.state == .completed })
        guard task.state == .suspended else { return }
        let atSuspend = recorder.snapshot
        try await Task.sleep(nanoseconds: 300_000_000)  // the rest of the body and libcurl's end come meanwhile
        #expect(recorder.snapshot.completions == 0, "completed while suspended")
        #expect(recorder.snapshot.body.count == atSuspend.body.count, "bytes reached a suspended delegate")
        #expect(task.state == .suspended)
        task.resume()
        guard await recorder.waitForCompletion() else { return }
        #expect(recorder.snapshot.error == nil)
        #expect(recorder.snapshot.body == patternBytes(count: size))
    }

    /// The race above, made certain: the loop ends the transfer (here the test does it, as the loop would)
    /// after `suspend()` returned but before the loop heard of it. The end is kept until `resume()`.
    @Test func anEndThatRacesASuspensionIsKeptUntilResume() async throws {
        let server = try Servers.shared()
        let recorder = Recorder()
        let session = makeSession(recorder) { $0.timeoutIntervalForRequest = 600 }  // no timeout may end it first
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: server.url("/stall?race=1"))
        task.resume()
        #expect(await eventually { !recorder.snapshot.responses.isEmpty })
        task.suspend()
        let lost = TransferError(.networkConnectionLost, "the connection was lost")
        task.finish(error: lost)
        try await Task.sleep(nanoseconds: 200_000_000)
        #expect(recorder.snapshot.completions == 0, "completed while suspended")
        #expect(task.state == .suspended)
        task.resume()
        guard await recorder.waitForCompletion() else { return }
        #expect(recorder.snapshot.error == lost)
        #expect(recorder.snapshot.completions == 1)
        session.loop.send(.cancel(task.taskIdentifier))  // the stalled transfer the injected end left behind
    }

    /// The response reaches the delegate when its head has arrived, as URLSession delivers it, even if no body
    /// byte ever follows; a timeout after it is the task's error, with the response known.
    @Test func theResponseComesWithTheHeadNotTheFirstByte() async throws {
        let server = try Servers.shared()
        let recorder = Recorder()
        let session = makeSession(recorder) { $0.timeoutIntervalForRequest = 1 }
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: server.url("/stall?head=1"))
        task.resume()
        #expect(await eventually(0.9) { !recorder.snapshot.responses.isEmpty }, "no response before the timeout")
        guard await recorder.waitForCompletion() else { return }
        #expect(recorder.snapshot.responses.first?.statusCode == 200)
        #expect(recorder.snapshot.error?.code == .timedOut)
        #expect(recorder.snapshot.calls == ["response", "complete"])
    }

    @Test func cancelWhileRunningReportsCancelledAndPartialBytes() async throws {
        let server = try Servers.shared()
        let recorder = Recorder()
        let session = makeSession(recorder)
        defer { session.finishTasksAndInvalidate() }
        // Held after its first chunk until the gate opens, which it never does: however long the test waits to be
        // scheduled (seconds, on a busy machine), the body cannot end before the cancel (a 20 s drip once did). The
        // hour's timeout: under ThreadSanitizer, with every test running at once, the cancel once came after the
        // default 60 s without data had ended the task as timed out.
        let gate = UUID().uuidString
        let task = session.dataTask(with: Request(url: server.url("/drip?bytes=1000000&chunk=500&interval=10&gate=\(gate)"),
                                                  timeoutInterval: 3600))
        task.resume()
        #expect(await eventually { recorder.snapshot.body.count > 0 })
        task.cancel()
        #expect(task.state == .canceling || task.state == .completed)
        guard await recorder.waitForCompletion() else { return }
        let s = recorder.snapshot
        #expect(s.error?.code == .cancelled)
        #expect(task.state == .completed)
        #expect(s.body.count < 1_000_000)
        #expect(s.completions == 1)
    }

    @Test func cancelBeforeResumeStillCompletesOnce() async throws {
        let server = try Servers.shared()
        let recorder = Recorder()
        let session = makeSession(recorder)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: server.url("/bytes/10"))
        task.cancel()
        task.resume()  // too late: ignored
        guard await recorder.waitForCompletion() else { return }
        #expect(recorder.snapshot.error?.code == .cancelled)
        #expect(recorder.snapshot.calls == ["complete"])
    }

    @Test func multipartGivesOneResponsePerPart() async throws {
        let server = try Servers.shared()
        let recorder = Recorder()
        let log = EventLog()
        let session = makeSession(recorder, log: log)
        defer { session.finishTasksAndInvalidate() }
        session.dataTask(with: server.url("/multipart?parts=4&size=300&interval=5")).resume()
        guard await recorder.waitForCompletion() else { return }
        let s = recorder.snapshot
        #expect(s.error == nil)
        #expect(s.responses.count == 4)
        #expect(s.responses.map(\.part) == [0, 1, 2, 3])
        #expect(s.responses.map { $0.headers["X-Part"] } == ["0", "1", "2", "3"])
        #expect(s.responses.allSatisfy { $0.expectedContentLength == 300 && $0.statusCode == 200 })
        for (i, part) in s.bodyPerPart.enumerated() {
            #expect(String(decoding: part, as: UTF8.self) == String(repeating: String(UnicodeScalar(UInt8(97 + i))), count: 300))
        }
        #expect(s.calls.last == "complete")
        #expect(log.names.filter { $0 == "disposition" }.count == 4)
    }

    @Test func multipartPartsWaitForTheirOwnDisposition() async throws {
        let server = try Servers.shared()
        let recorder = Recorder(plan: { r in r.part == 1 ? nil : .allow })
        let session = makeSession(recorder)
        defer { session.finishTasksAndInvalidate() }
        session.dataTask(with: server.url("/multipart?parts=3&size=10&interval=1")).resume()
        #expect(await eventually { !recorder.snapshot.heldHandlers.isEmpty })
        try await Task.sleep(nanoseconds: 200_000_000)
        #expect(recorder.snapshot.bodyPerPart.count == 2)
        #expect(recorder.snapshot.bodyPerPart[1].isEmpty)   // part 1's data waits for part 1's answer
        recorder.snapshot.heldHandlers[0](.allow)
        guard await recorder.waitForCompletion() else { return }
        #expect(recorder.snapshot.bodyPerPart.map(\.count) == [10, 10, 10])
    }
}
