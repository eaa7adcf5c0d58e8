// Commands sent from inside a batch of the loop's delegate calls: they wake the loop once, at the batch's end,
// and are still all applied in order; a delegate that waits for the loop inside a batch is answered.
import Dispatch
import Foundation
@testable import SluiceEngine
import SluiceScenarioServer
import Synchronization
import SluiceLock
import Testing

@Suite struct LoopBatchTests {
    /// On its first response the delegate starts twenty tasks, and starts and at once cancels one more, all in the
    /// same delegate call: every start is applied, and the cancel after its start (applied before it, the start
    /// would make the task run to a 200).
    @Test func commandsFromOneBatchAreAllAppliedInOrder() async throws {
        let server = try Servers.shared()
        let delegate = Starter(url: server.url("/bytes/1000"), count: 20)
        let session = Session(delegate: delegate, delegateQueue: delegate.queue)
        defer { session.finishTasksAndInvalidate() }
        session.dataTask(with: server.url("/bytes/1000")).resume()
        #expect(await eventually { delegate.completed.withLock { $0.count } == 22 }, "not every task completed")
        let completed = delegate.completed.withLock { $0 }
        let cancelled = delegate.cancelledID.withLock { $0 }
        #expect(completed.filter { $0.key != cancelled }.allSatisfy { $0.value == nil })
        #expect(completed[cancelled ?? -1] == .some(.cancelled), "the cancel sent after the start was not applied after it")
    }

    /// A delegate that, inside a batch and with nothing else left to transfer, waits for an answer from the loop
    /// gets it: the loop sleeps at most `batchWaitCap` while a batch is out, instead of until a command wakes it.
    @Test func aDelegateWaitingForTheLoopInsideABatchIsAnswered() async throws {
        let server = try Servers.shared()
        let delegate = Waiter()
        let session = Session(delegate: delegate, delegateQueue: delegate.queue)
        defer { session.finishTasksAndInvalidate() }
        session.dataTask(with: server.url("/bytes/100")).resume()
        #expect(await eventually { delegate.answered.withLock { $0 } != nil })
        #expect(delegate.answered.withLock { $0 } == true, "the loop did not answer within 5 s: the delegate would have waited for ever")
    }
}

/// Starts `count` tasks and one that it cancels at once, from the first response's delegate call.
private final class Starter: SessionDataDelegate, @unchecked Sendable {
    let queue = DispatchQueue(label: "test.batch-starter")
    let completed = Locked<[Int: TransferError.Code?]>([:])
    let cancelledID = Locked<Int?>(nil)
    private let url: URL
    private let count: Int
    private var started = false  // delegate queue only

    init(url: URL, count: Int) {
        self.url = url
        self.count = count
    }

    func urlSession(_ session: Session, dataTask: DataTask, didReceive response: Response,
                    completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) {
        completionHandler(.allow)
        guard !started else { return }
        started = true
        for _ in 0..<count { session.dataTask(with: url).resume() }
        let doomed = session.dataTask(with: url)
        cancelledID.withLock { $0 = doomed.taskIdentifier }
        doomed.resume()
        doomed.cancel()
    }

    func urlSession(_ session: Session, task: SessionTask, didCompleteWithError error: TransferError?) {
        completed.withLock { $0[task.taskIdentifier] = .some(error?.code) }
    }

    func urlSession(_ session: Session, didBecomeInvalidWithError error: TransferError?) {}
}

/// At its task's completion, asks the loop for the task's applied rate limit and blocks the delegate queue until
/// the answer comes or 5 s pass.
private final class Waiter: SessionDataDelegate, @unchecked Sendable {
    let queue = DispatchQueue(label: "test.batch-waiter")
    let answered = Locked<Bool?>(nil)

    func urlSession(_ session: Session, task: SessionTask, didCompleteWithError error: TransferError?) {
        let answer = DispatchSemaphore(value: 0)
        session.appliedRateLimit(of: task) { _ in answer.signal() }
        let result = answer.wait(timeout: .now() + .seconds(5))
        answered.withLock { $0 = result == .success }
    }

    func urlSession(_ session: Session, didBecomeInvalidWithError error: TransferError?) {}
}
