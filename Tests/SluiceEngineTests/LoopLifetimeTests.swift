// The transfer loop's life and the callers that outlive it: late commands, a loop without a thread, released
// sessions, abandoned byte streams, invalidation order.
import Dispatch
import Foundation
@testable import SluiceEngine
import SluiceScenarioServer
import Synchronization
import SluiceLock
import Testing

@Suite struct LoopLifetimeTests {
    /// A disposition answered after the session shut its loop down reaches no freed multi handle (under
    /// AddressSanitizer the old code reported a heap-use-after-free in curl_multi_wakeup).
    @Test func aCommandAfterShutdownIsDropped() async throws {
        let server = try Servers.shared()
        let recorder = Recorder(plan: { _ in nil })  // the handler is kept, answered after the end
        let session = Session(delegate: recorder, delegateQueue: recorder.queue)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: server.url("/bytes/1000"))
        task.resume()
        #expect(await eventually { recorder.snapshot.heldHandlers.count == 1 })
        task.cancel()
        guard await recorder.waitForCompletion() else { return }
        session.finishTasksAndInvalidate()
        #expect(await eventually { session.loop.isClosed })
        #expect(session.loop.send(.disposition(task.taskIdentifier, .allow)) == false)
        recorder.snapshot.heldHandlers.first?(.allow)  // the public path to the same late command
        #expect(recorder.snapshot.completions == 1)
    }

    /// A loop that got no thread fails a resumed task at once, without taking the task's lock twice.
    @Test func resumeWithoutALoopThreadFailsTheTask() async throws {
        let session = Session(configuration: .default, delegate: nil, delegateQueue: nil, eventMonitor: nil, startsLoop: false)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: URL(string: "http://127.0.0.1:9/never")!)
        let returned = Atomic<Bool>(false)
        let thread = Thread {
            task.resume()
            returned.store(true, ordering: .sequentiallyConsistent)
        }
        thread.start()
        #expect(await eventually(5) { returned.load(ordering: .sequentiallyConsistent) }, "resume() deadlocked")
        guard returned.load(ordering: .sequentiallyConsistent) else { return }
        #expect(await eventually { task.state == .completed })
        #expect(task.error?.code == .unknown)
    }

    /// A session nobody invalidates still lets its loop thread go once the session is released.
    @Test func aReleasedSessionFreesItsThread() async throws {
        let server = try Servers.shared()
        weak var loop: TransferLoop?
        do {
            let session = Session()
            defer { session.finishTasksAndInvalidate() }
            loop = session.loop
            _ = try await session.data(from: server.url("/bytes/100"))
        }
        #expect(await eventually { loop == nil }, "the loop thread still holds its loop")
    }

    /// Dropping the byte stream (and every iterator of it) cancels the transfer, which had been held for
    /// backpressure and so was exempt from the inactivity timeout.
    @Test func anAbandonedByteStreamCancelsItsTask() async throws {
        let server = try Servers.shared()
        let log = EventLog()
        var configuration = SessionConfiguration.default
        configuration.maximumBufferedBytes = 64 << 10
        let session = Session(configuration: configuration, eventMonitor: log.monitor)
        defer { session.invalidateAndCancel() }
        do {
            let (bytes, _) = try await session.bytes(from: server.url("/bytes/50000000"))
            var iterator = bytes.makeAsyncIterator()
            _ = try await iterator.next()
        }
        #expect(await eventually {
            log.events.contains { if case .didCompleteWithError(let e) = $0 { e?.code == .cancelled } else { false } }
        }, "the abandoned transfer was never cancelled")
    }

    /// Cancelling the Swift task that reads the bytes ends the read at once and cancels the transfer.
    @Test func cancellingTheReadingTaskCancelsTheTransfer() async throws {
        let server = try Servers.shared()
        let session = Session()
        defer { session.invalidateAndCancel() }
        let (bytes, _) = try await session.bytes(from: server.url("/bytes/100000?stall=10&n=1"))
        let task = try #require(bytes.reader.stream.task)  // held here: the stream's reference is weak
        let reader = Task { () -> TransferError.Code? in
            do {
                for try await _ in bytes {}
                return nil
            } catch let error as TransferError {
                return error.code
            } catch {
                return .unknown
            }
        }
        try await Task.sleep(nanoseconds: 20_000_000)  // let the reader wait for a chunk that never comes
        reader.cancel()
        let ended = Atomic<Bool>(false)
        let code = Locked<TransferError.Code?>(nil)
        Task {
            let result = await reader.value
            code.withLock { $0 = result }
            ended.store(true, ordering: .sequentiallyConsistent)
        }
        #expect(await eventually(30) { ended.load(ordering: .sequentiallyConsistent) },  // liveness, not speed
                "the read did not end: \(task) \(task.countOfBytesReceived) \(String(describing: task.error)) stream finished: \(bytes.reader.stream.hasFinished)")
        #expect(code.withLock { $0 } == .cancelled)
        #expect(await eventually { task.state == .completed })
    }

    /// didBecomeInvalid comes after every task's didCompleteWithError, each with the cancellation, even for tasks
    /// that could never end by themselves.
    @Test func invalidationComesAfterEveryCancellation() async throws {
        let server = try Servers.shared()
        let recorder = Recorder()
        let session = Session(delegate: recorder, delegateQueue: recorder.queue)
        defer { session.finishTasksAndInvalidate() }
        let tasks = (0..<3).map { i in session.dataTask(with: server.url("/stall?n=\(i)")) }
        tasks[0].resume()
        tasks[1].resume()  // the third is never resumed
        session.invalidateAndCancel()
        #expect(await eventually { recorder.snapshot.invalidated == 1 })
        #expect(tasks.allSatisfy { $0.error?.code == .cancelled })
        let calls = recorder.snapshot.calls.filter { $0 == "complete" || $0 == "invalid" }
        #expect(calls == ["complete", "complete", "complete", "invalid"])
    }
}
