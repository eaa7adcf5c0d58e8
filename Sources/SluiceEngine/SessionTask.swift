// A task's public face (state, counters, requests, response) and its delivery of events on the delegate queue.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization
import SluiceLock

/// Shared by data, download and upload tasks. Thread-safe: public state sits behind a lock or in
/// atomics; the fields marked "delegate queue only" are touched from the session's serial delegate queue alone.
public class SessionTask: @unchecked Sendable, CustomStringConvertible {
    public let taskIdentifier: Int
    public let originalRequest: Request
    public let session: Session

    private let lifecycle: Locked<TaskLifecycle>
    private let info: Locked<Info>
    private let received = Atomic<Int64>(0)
    private let expected = Atomic<Int64>(Response.unknownLength)
    private let sent = Atomic<Int64>(0)
    private let expectedToSend: Atomic<Int64>
    /// The task's own receive limit in bytes per second, 0 for none (see `maximumBytesPerSecond`).
    let receiveLimit = Atomic<Int64>(0)

    // Flow control between the loop thread and the delegate queue.
    let inFlightBytes = Atomic<Int>(0)
    let drainWanted = Atomic<Bool>(false)
    /// Closed while the task is suspended: chunks that reach the delegate queue then wait in `parked`.
    private let gateClosed = Atomic<Bool>(false)
    private var parked: [Data] = []                       // delegate queue only
    /// Fixed at resume: who receives this task's events (an internal collector, the task's, or the session's).
    private(set) var target: SessionTaskDelegate?         // written before start, then read on the delegate queue
    private var dataTarget: SessionDataDelegate?          // the same, cast once rather than per chunk
    private var targetHoldsCredit = false
    /// Set by engine-internal consumers that release buffered bytes themselves (AsyncBytes).
    var internalDelegate: SessionTaskDelegate?

    struct Info {
        var currentRequest: Request
        var response: Response?
        var error: TransferError?
        var taskDescription: String?
        var priority = SessionTask.defaultPriority
        var delegate: SessionTaskDelegate?
        var metrics: TaskMetrics?
    }

    init(identifier: Int, request: Request, session: Session, lifecycle: TaskLifecycle = TaskLifecycle(),
         expectedToSend: Int64? = nil) {
        taskIdentifier = identifier
        originalRequest = request
        self.session = session
        self.lifecycle = Locked(lifecycle)
        info = Locked(Info(currentRequest: request))
        self.expectedToSend = Atomic(expectedToSend ?? Int64(request.body?.count ?? 0))
    }

    // MARK: Public state

    public var state: TaskState { lifecycle.withLock { $0.state } }
    public var currentRequest: Request { info.withLock { $0.currentRequest } }
    public var response: Response? { info.withLock { $0.response } }
    public var error: TransferError? { info.withLock { $0.error } }
    /// The task's metrics once it has ended (what didFinishCollecting gets); nil before.
    public var metrics: TaskMetrics? { info.withLock { $0.metrics } }
    public var countOfBytesReceived: Int64 { received.load(ordering: .relaxed) }
    /// The announced body length, or -1 while unknown (never 0 for "unknown").
    public var countOfBytesExpectedToReceive: Int64 { expected.load(ordering: .relaxed) }
    public var countOfBytesSent: Int64 { sent.load(ordering: .relaxed) }
    public var countOfBytesExpectedToSend: Int64 { expectedToSend.load(ordering: .relaxed) }

    public var taskDescription: String? {
        get { info.withLock { $0.taskDescription } }
        set { info.withLock { $0.taskDescription = newValue } }
    }

    /// URLSessionTask's named priorities.
    public static let lowPriority: Float = 0.25
    public static let defaultPriority: Float = 0.5
    public static let highPriority: Float = 0.75

    /// 0...1, as URLSession's; mapped to an HTTP/2 stream weight.
    public var priority: Float {
        get { info.withLock { $0.priority } }
        set { info.withLock { $0.priority = min(1, max(0, newValue)) } }
    }

    /// A delegate for this task alone; it takes precedence over the session's. Set it before `resume()`.
    public var delegate: SessionTaskDelegate? {
        get { info.withLock { $0.delegate } }
        set { info.withLock { $0.delegate = newValue } }
    }

    public var description: String {
        let name = String(describing: type(of: self))
        return "<\(name) \(taskIdentifier) \(state.rawValue) \(originalRequest.url.absoluteString)>"
    }

    // MARK: Control

    public func resume() {
        var then = TaskLifecycle.Action.none
        let refused = lifecycle.withLock { life -> Bool in
            switch life.resume() {
            case .none:
                return false
            case let ending where ending == .deliverKeptEnd || ending == .releaseHeldEnd:
                emitStateChange(.running)
                then = ending
                return false
            case .start:
                resolveTarget()
                emitStateChange(.running)
                // Sent under the lock so that a suspend() racing this resume() reaches the loop after the start;
                // the loop never calls back into a sender, so holding the lock here cannot deadlock.
                return !session.taskStarted(self)
            default:
                emitStateChange(.running)
                gateClosed.store(false, ordering: .sequentiallyConsistent)
                session.delegateQueue.async { self.flushParked() }
                session.loop.send(.resume(taskIdentifier))
                return false
            }
        }
        if refused {
            finish(error: TransferError(.sessionInvalidated, "the session was invalidated before this task started",
                                        failingURL: originalRequest.url))
        }
        deliverEnd(then)
    }

    /// Really pauses the bytes: the transfer stops reading, and no chunk reaches the delegate until `resume()`.
    public func suspend() {
        lifecycle.withLock { life in
            guard life.suspend() == .pause else { return }
            gateClosed.store(true, ordering: .sequentiallyConsistent)
            emitStateChange(.suspended)
            session.loop.send(.suspend(taskIdentifier))
        }
    }

    public func cancel() {
        var then = TaskLifecycle.Action.none
        let neverStarted = lifecycle.withLock { life -> Bool in
            let wasStarted = life.started
            switch life.cancel() {
            case .cancel:
                emitStateChange(.canceling)
                if wasStarted { session.loop.send(.cancel(taskIdentifier)) } else { resolveTarget() }
                return !wasStarted
            case let ending:
                then = ending
                return false
            }
        }
        if neverStarted { finish(error: .cancelled(originalRequest.url)) }
        deliverEnd(then)
    }

    /// Delivers an end the suspension kept back, now that the task is resumed (or cancelled).
    private func deliverEnd(_ action: TaskLifecycle.Action) {
        switch action {
        case .deliverKeptEnd:
            gateClosed.store(false, ordering: .sequentiallyConsistent)
            completeDelivery(info.withLock { $0.error })
        case .releaseHeldEnd:
            gateClosed.store(false, ordering: .sequentiallyConsistent)
            session.delegateQueue.async { [self] in
                guard lifecycle.withLock({ $0.arriveAtDelegate() }) else { return }  // suspended again: held again
                let last = heldEnd
                heldEnd = nil
                last?()
            }
        default:
            break
        }
    }

    /// Delegate queue: the task's last calls, waiting for a resume when the task was suspended on their way.
    private var heldEnd: (() -> Void)?

    /// Delegate queue: makes the task's last calls now, or keeps them if it was suspended after its transfer
    /// ended (they run at `resume()` or `cancel()`).
    func makeLastCalls(_ last: @escaping () -> Void) {
        assertOnDelegateQueue()
        if lifecycle.withLock({ $0.arriveAtDelegate() }) {
            last()
        } else {
            heldEnd = last
        }
    }

    func resolveTarget(inheriting inherited: SessionTaskDelegate? = nil) {
        if let own = inherited ?? internalDelegate ?? info.withLock({ $0.delegate }) {
            target = own
            // A task delegate that is no data delegate leaves the data calls to the session's (URLSession's rule).
            dataTarget = self is DataTask ? own as? SessionDataDelegate ?? session.delegateAsDataDelegate : nil
            targetHoldsCredit = own is CreditHolder
        } else {
            let roles = session.delegates  // the same casts, made once by the session
            target = roles.asTaskDelegate
            dataTarget = self is DataTask ? roles.asDataDelegate : nil
            targetHoldsCredit = roles.holdsCredit
        }
        targetResolved()
    }

    /// For subclasses that cast the target once more.
    func targetResolved() {}

    var isGateClosed: Bool { gateClosed.load(ordering: .sequentiallyConsistent) }

    // MARK: Called on the loop thread

    func setCurrentURL(_ url: URL) { info.withLock { $0.currentRequest.url = url } }

    func setCurrentRequest(_ request: Request) { info.withLock { $0.currentRequest = request } }

    /// A task continuing another's transfer starts with the response that transfer already has.
    func inheritResponse(_ response: Response?) { info.withLock { $0.response = response } }

    /// Runs just before the transfer is built (download tasks open their file here).
    func prepareToStart() throws(TransferError) {}

    /// A response the task cannot take (a resumed download given the wrong range) fails the transfer.
    func admit(_ response: Response) -> TransferError? { nil }

    /// On the delegate queue, after `didReceiveResponse` for tasks whose delegate is not asked for a disposition.
    func responseAnnounced(_ response: Response) {}

    /// Asks whether to follow a redirect; the transfer stays held until the answer comes back through the loop.
    func deliverRedirect(_ response: Response, to request: Request) {
        let answered = Atomic<Bool>(false)
        let id = taskIdentifier
        let handler: @Sendable (Request?) -> Void = { [self] next in
            guard !answered.exchange(true, ordering: .acquiringAndReleasing) else { return }  // first answer wins
            if session.eventMonitor != nil { session.delegateQueue.async { self.emit(.redirectAnswer(next?.url)) } }
            session.loop.send(.redirect(id, next))
        }
        session.loop.deliver { [self] in
            emit(.willPerformHTTPRedirection(response, to: request.url))
            if let target {
                target.urlSession(session, task: self, willPerformHTTPRedirection: response, newRequest: request,
                                  completionHandler: handler)
            } else {
                handler(request)
            }
        }
    }

    /// Metrics of the requests this task finished sending (loop thread only; a task that never started has none).
    var transactions: [TransactionMetrics] = []
    /// When the task's first transfer started, for the resource timeout (loop thread only).
    var startedAt: UInt64 = 0
    /// Redirects followed so far (loop thread only).
    var redirectCount = 0
    /// One of the session's `maximumConcurrentTasks` places is this task's, from its start until it ends (loop
    /// thread only; TaskPlaces.swift).
    var holdsPlace = false
    /// Its first transfer passed the session's receive budget (TransferLoop.heldForBudget): a redirect or a resend
    /// does not wait again (loop thread only).
    var passedBudget = false
    /// False once a redirect turned the request into a GET: an upload task's body stays unsent (loop thread only).
    var sendsBody = true
    /// The credentials the delegate gave, for the server and for the proxy, with how many were refused per space
    /// (loop thread only). A server credential goes only to its own origin.
    var serverCredential: (credential: Credential, space: ProtectionSpace)?
    var proxyCredential: (credential: Credential, space: ProtectionSpace)?
    var refusedCredentials: [ProtectionSpace: Int] = [:]
    /// The server whose certificate the delegate accepted in a server-trust challenge (loop thread only).
    var trustedServer: ProtectionSpace?

    /// A 1xx response: told, not waited for.
    func deliverInformational(_ response: Response) {
        session.loop.deliver { [self] in
            emit(.didReceiveInformationalResponse(response))
            target?.urlSession(session, task: self, didReceiveInformationalResponse: response)
        }
    }

    /// Asks the delegate to answer a challenge; the transfer stays held until the answer comes through the loop.
    func deliverChallenge(_ challenge: AuthenticationChallenge) {
        let answered = Atomic<Bool>(false)
        let id = taskIdentifier
        let space = challenge.protectionSpace
        let storage = session.configuration.credentialStorage
        let handler: @Sendable (ChallengeDisposition) -> Void = { [self] disposition in
            guard !answered.exchange(true, ordering: .acquiringAndReleasing) else { return }  // first answer wins
            if session.eventMonitor != nil { session.delegateQueue.async { self.emit(.challengeAnswer(disposition.name)) } }
            let answer: TransferLoop.ChallengeAnswer
            switch disposition {
            case .useCredential(let credential):
                answer = .resend(credential, space)
            case .performDefaultHandling:
                // A stored credential, unless it is the one just refused: then the 401 or 407 is the answer.
                if let stored = storage?.credential(for: space),
                   challenge.previousFailureCount == 0 || stored != challenge.proposedCredential {
                    answer = .resend(stored, space)
                } else {
                    answer = .takeResponse
                }
            case .cancelAuthenticationChallenge:
                answer = .cancel
            case .rejectProtectionSpace:
                answer = .takeResponse
            }
            session.loop.send(.challenge(id, answer))
        }
        session.loop.deliver { [self] in
            emit(.didReceiveChallenge(space, previousFailureCount: challenge.previousFailureCount))
            if let target {
                target.urlSession(session, task: self, didReceive: challenge, completionHandler: handler)
            } else {
                handler(.performDefaultHandling)
            }
        }
    }

    /// Delivers a response; the transfer stays held until the handler's answer comes back through the loop.
    func deliverResponse(_ response: Response) -> TransferError? {
        if let problem = admit(response) { return problem }
        info.withLock { $0.response = response }
        expected.store(response.expectedContentLength, ordering: .relaxed)
        let answered = Atomic<Bool>(false)
        let id = taskIdentifier
        let handler: @Sendable (ResponseDisposition) -> Void = { [self] disposition in
            guard !answered.exchange(true, ordering: .acquiringAndReleasing) else { return }  // first answer wins
            if session.eventMonitor != nil { session.delegateQueue.async { self.emit(.disposition(disposition)) } }
            session.loop.send(.disposition(id, disposition))
        }
        // Whom to ask is known here: the targets were set before the task started (`resolveTarget`).
        let asks = dataTarget != nil && self is DataTask
        session.loop.deliver { [self] in
            emit(.didReceiveResponse(response))
            if asks, let delegate = dataTarget, let dataTask = self as? DataTask {
                delegate.urlSession(session, dataTask: dataTask, didReceive: response, completionHandler: handler)
            } else {
                // Nobody is asked (a download task, a data task without a data delegate): no disposition event tells
                // of a delegate call that never happened.
                responseAnnounced(response)
            }
        }
        // Nor does the transfer wait for the delegate queue to say so: it goes on at the loop's next turn. Whatever
        // the delegate queue is told of its bytes from then on comes after the announcement delivered above.
        if !asks { session.loop.answer(.disposition(id, .allow)) }
        return nil
    }

    /// Hands one chunk to the delegate queue. Returns true when the bytes in flight passed the session's limit
    /// and the transfer should hold until the consumer drains them.
    func deliverData(_ data: Data) -> Bool {
        let count = data.count
        received.add(Int64(count), ordering: .relaxed)
        let pending = inFlightBytes.add(count, ordering: .relaxed).newValue
        route(data)
        guard pending > session.configuration.maximumBufferedBytes else { return false }
        drainWanted.store(true, ordering: .sequentiallyConsistent)
        // The consumer may have drained between the add and the flag; then there is nothing to wait for.
        if inFlightBytes.load(ordering: .sequentiallyConsistent) <= session.configuration.maximumBufferedBytes / 4 {
            drainWanted.store(false, ordering: .sequentiallyConsistent)
            return false
        }
        return true
    }

    /// Where a chunk goes: data tasks hand it to the delegate queue, in order, unless suspended.
    func route(_ data: Data) {
        session.loop.deliver { [self] in
            if gateClosed.load(ordering: .sequentiallyConsistent) || !parked.isEmpty {
                parked.append(data)
                return
            }
            hand(data)
        }
    }

    /// Upload progress, already rate-limited by the transfer.
    func deliverSent(bytes: Int64, total: Int64) {
        sent.store(total, ordering: .relaxed)
        let expected = countOfBytesExpectedToSend
        session.loop.deliver { [self] in
            emit(.didSendBodyData(bytes: bytes, total: total, expected: expected))
            target?.urlSession(session, task: self, didSendBodyData: bytes, totalBytesSent: total,
                               totalBytesExpectedToSend: expected)
        }
    }

    /// Marks the task completed and queues `didCompleteWithError` as its last delegate call.
    func finish(error: TransferError?) {
        let ending = lifecycle.withLock { $0.end() }
        guard ending != .alreadyEnded else { return }
        // Loop-thread fields: a started task is finished by the loop; one that never started has no writer.
        let duration = startedAt == 0 ? 0 : Double(uptimeNow() &- startedAt) / 1e9
        let metrics = TaskMetrics(transactions: transactions, redirectCount: redirectCount, duration: duration)
        info.withLock { info in
            info.error = error
            info.metrics = metrics
        }
        guard ending == .report else { return }  // suspended: kept until resume() or cancel()
        gateClosed.store(false, ordering: .sequentiallyConsistent)
        completeDelivery(error)
    }

    /// Download tasks first settle their file, then report.
    func completeDelivery(_ error: TransferError?) {
        session.loop.deliver { self.makeLastCalls { self.reportCompletion(error) } }
    }

    /// Delegate queue: the last events of the task.
    func reportCompletion(_ error: TransferError?) {
        assertOnDelegateQueue()
        info.withLock { $0.error = error }
        flushParked()
        if let metrics = info.withLock({ $0.metrics }) {
            emit(.didFinishCollectingMetrics(metrics))
            target?.urlSession(session, task: self, didFinishCollecting: metrics)
        }
        emit(.stateChanged(.completed))
        emit(.didCompleteWithError(error))
        target?.urlSession(session, task: self, didCompleteWithError: error)
        dropTarget()
        session.taskCompleted(self)
    }

    /// Breaks the cycle a task-owned delegate could form.
    func dropTarget() {
        target = nil
        dataTarget = nil
    }

    /// Loop thread: the transfer now belongs to `download`. This task completes without `didCompleteWithError`;
    /// the chunks it was already given reach its delegate first, then `didBecome downloadTask`.
    func handOver(to download: DownloadTask) {
        guard lifecycle.withLock({ $0.complete() }) else { return }
        gateClosed.store(false, ordering: .sequentiallyConsistent)
        session.loop.deliver { [self] in
            flushParked()
            emit(.didBecomeDownloadTask(download.taskIdentifier))
            download.resolveTarget(inheriting: target)
            if let delegate = dataTarget, let dataTask = self as? DataTask {
                delegate.urlSession(session, dataTask: dataTask, didBecome: download)
            }
            emit(.stateChanged(.completed))
            dropTarget()
            session.taskCompleted(self)
            download.takeOver()
        }
    }

    // MARK: Delegate queue

    private func hand(_ data: Data) {
        assertOnDelegateQueue()
        emit(.didReceiveData(bytes: data.count))
        if let delegate = dataTarget {
            // dataTarget is only set on DataTask instances, so the unchecked downcast is sound.
            delegate.urlSession(session, dataTask: unsafeDowncast(self, to: DataTask.self), didReceive: data)
        }
        if !targetHoldsCredit { releaseCredit(data.count) }
    }

    /// Debug builds stop when delegate-queue state (`parked`, the targets) is touched from elsewhere.
    @inline(__always)
    func assertOnDelegateQueue() {
        dispatchPrecondition(condition: .onQueue(session.delegateQueue))
    }

    private func flushParked() {
        assertOnDelegateQueue()
        guard !gateClosed.load(ordering: .sequentiallyConsistent) else { return }
        let chunks = parked
        parked.removeAll()
        for chunk in chunks { hand(chunk) }
    }

    /// Bytes the consumer is done with; when enough are gone, the loop is told to let the transfer flow again.
    func releaseCredit(_ count: Int) {
        let pending = inFlightBytes.subtract(count, ordering: .sequentiallyConsistent).newValue
        if pending <= session.configuration.maximumBufferedBytes / 4,
           drainWanted.exchange(false, ordering: .sequentiallyConsistent) {
            session.loop.send(.drained(taskIdentifier))
        }
    }

    func emitStateChange(_ state: TaskState) {
        guard session.eventMonitor != nil else { return }  // a dispatch per task saved when nobody watches
        session.delegateQueue.async { self.emit(.stateChanged(state)) }
    }

    func emit(_ event: TaskEvent) {
        session.eventMonitor?(TaskEventRecord(taskIdentifier: taskIdentifier, uptimeNanoseconds: uptimeNow(), event: event))
    }
}

/// A delegate that keeps delivered chunks past the delegate call and releases them with `releaseCredit` itself.
protocol CreditHolder: AnyObject {}

public class DataTask: SessionTask, @unchecked Sendable {
    private let partialFileForDownload = Mutex<String?>(nil)

    /// Where the download this task may become (`convertToDownload`, `.becomeDownload`) writes: a file the caller
    /// found free, created there exclusively (a caller's visible `NAME.sluice-part`, so a crash leaves it where a
    /// rerun finds it). Nil, or a name taken meanwhile: a hidden name in the session's download directory. Set it
    /// before the conversion; any thread.
    public var downloadPartialFile: String? {
        get { partialFileForDownload.withLock { $0 } }
        set { partialFileForDownload.withLock { $0 = newValue } }
    }

    /// Turns a running (or suspended) data task into a download task without a new request: the bytes not yet
    /// delivered go to the download's file, and `didBecome downloadTask` hands the new task over.
    /// Ignored once the task has completed.
    public func convertToDownload() {
        guard state == .running || state == .suspended else { return }
        session.loop.send(.convert(taskIdentifier))
    }
}
