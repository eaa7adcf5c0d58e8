// The one thread that owns libcurl's multi handle and every easy handle of a session.
import CCurl
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

/// Other threads talk to the loop only through `send`: commands queue behind a lock and
/// `curl_multi_wakeup` (the one multi call that is safe from any thread) interrupts the poll. Commands sent by the
/// delegate calls of one of the loop's batches wake it once, when the batch ends (see `deliverBatch`). Once the loop has
/// ended, its inbox is closed under that same lock, in the same step that frees the multi handle, so a late
/// command (a handler answered after completion, a reader still draining) is dropped, never sent to freed memory.
final class TransferLoop: @unchecked Sendable {
    enum Command {
        case start(SessionTask)
        case suspend(Int)
        case resume(Int)
        /// The consumer drained the bytes that held the transfer back.
        case drained(Int)
        case cancel(Int)
        case disposition(Int, ResponseDisposition)
        /// The delegate's answer to a redirect: the request to follow, or nil to keep the redirect response.
        case redirect(Int, Request?)
        /// The delegate's answer to an authentication challenge.
        case challenge(Int, ChallengeAnswer)
        /// The delegate's new body stream for an upload that must be sent again; nil: it has none.
        case newBodyStream(Int, UploadStream?)
        /// A running data task becomes a download task.
        case convert(Int)
        /// An upload stream that ran dry has bytes again.
        case uploadReady(Int)
        /// Something outside the loop (a download's file) failed; the transfer ends with this error.
        case fail(Int, TransferError)
        /// A task's own receive limit changed (it is read from the task), or (nil) the session's did.
        case rateLimitChanged(Int?, sessionLimit: Int64?)
        /// Answers with the task's transfer's share of the limits and what libcurl was given (nil: none).
        case appliedRateLimit(Int, @Sendable (RateGovernor.Limit?) -> Void)
        /// Answers with the session's receive budget as counted now, and the tasks it holds back.
        case receiveBudget(@Sendable (ReceiveBudget?, [Int]) -> Void)
        case shutdown
    }

    enum ChallengeAnswer {
        /// Send the request again with this credential for this space.
        case resend(Credential, ProtectionSpace)
        /// The 401 or 407 is the task's response.
        case takeResponse
        case cancel
    }

    /// Nil only when libcurl refused one; then no thread runs and the inbox starts closed.
    private let multi: UnsafeMutableRawPointer?
    private let configuration: SessionConfiguration
    private let inbox = Locked(Inbox())
    private let pool: BufferPool
    private let handles = EasyHandles()  // loop thread only
    private let rates: RateGovernor  // loop thread only

    private struct Inbox {
        var commands: [Command] = []
        /// Set by the first `send` after the loop last emptied the inbox: one wakeup (a socket write) per loop
        /// turn, not one per command (4,000 of them for 2,000 small transfers).
        var wakePending = false
        /// Threads running a batch of the loop's delegate calls: their commands wait for the batch's end to wake
        /// the loop, once. Otherwise a loop as quick as the delegate turns for each answer and each next task, and
        /// every turn costs libcurl 7.88 a `poll` per transfer in progress (docs/performance.md, "Wakeups").
        var batchThreads: [UInt] = []
        /// Batches the loop dispatched that have not ended; while one is out the loop sleeps at most
        /// `batchWaitCap`, so a delegate that waits inside a batch for the loop is answered (late), never left waiting.
        var batchesOut = 0
        /// The loop has ended (or never started): the multi handle is gone and commands are refused.
        var closed = true
    }

    // The loop thread's own fields are `@exclusivity(unchecked)`: they are touched several times for every task
    // (each dynamic check about 80 instructions; 14 a request in the HTTP/2 small-file benchmark), only the loop
    // thread touches them (asserted in every command and callback), and no method of theirs calls back into
    // this class, so no two accesses can overlap (the compiler's static diagnostics still apply).

    /// Delegate calls the loop makes during one turn, handed to the delegate queue as one block at the turn's
    /// end: a dispatch (and often a thread wakeup) per turn instead of one per response, chunk and completion.
    @exclusivity(unchecked) private var outbox: [@Sendable () -> Void] = []
    /// Commands the loop gives itself (`answer`), applied at the top of its next turn like any other.
    @exclusivity(unchecked) private var ownCommands: [Command] = []
    private let delegateQueue: DispatchQueue
    private let loopThread = Atomic<UInt>(0)

    // Loop thread only.
    @exclusivity(unchecked) private var transfers: [Int: Transfer] = [:]
    /// Stream uploads between two requests, waiting for the delegate's new stream (and whether suspended).
    @exclusivity(unchecked) private var awaitingStream: [Int: (task: UploadTask, suspended: Bool)] = [:]
    @exclusivity(unchecked) private var shuttingDown = false
    /// HTTP/1.1 tasks beyond an origin's connection limit, started by priority as connections come free
    /// (ConnectionWaitList.swift); the origin whose connection each started task holds; waiting tasks suspended.
    @exclusivity(unchecked) private var waitList: ConnectionWaitList
    @exclusivity(unchecked) private var waitingTasks: [Int: (task: SessionTask, origin: String)] = [:]
    @exclusivity(unchecked) private var heldOrigin: [Int: String] = [:]
    @exclusivity(unchecked) private var suspendedWhileWaiting: Set<Int> = []
    /// Tasks beyond `maximumConcurrentTasks` (TaskPlaces.swift); a task holds its place (`SessionTask.holdsPlace`)
    /// from its start until it ends, redirects and resends included.
    @exclusivity(unchecked) private var places: TaskPlaces
    /// Places freed and not yet given on, and whether `releasePlace` is giving them (further up the stack).
    @exclusivity(unchecked) private var placesToGive = 0
    @exclusivity(unchecked) private var givingPlaces = false
    /// Tasks whose first transfer waits for the session's receive budget (RateGovernor), in the order they came:
    /// with a session limit every first launch of a task that receives from the network passes here (a redirect or
    /// a resend of a task that passed does not). They keep the place and the connection slot they hold meanwhile.
    @exclusivity(unchecked) private var heldForBudget: [(task: SessionTask, scheme: String?)] = []
    @exclusivity(unchecked) private var nextTimeoutCheck: UInt64 = 0
    /// The most transfers in hand at once so far: libcurl's connection cache is sized for them (see `launch`).
    @exclusivity(unchecked) private var mostTransfers = 0

    /// `startsThread: false` gives a loop that refuses everything, as when the system has no thread to give.
    init(configuration: SessionConfiguration, delegateQueue: DispatchQueue, startsThread: Bool = true) {
        _ = CurlRuntime.ready
        self.configuration = configuration
        self.delegateQueue = delegateQueue
        pool = BufferPool(size: max(16 << 10, configuration.deliveryChunkSize))
        waitList = ConnectionWaitList(limit: configuration.httpMaximumConnectionsPerHost)
        places = TaskPlaces(limit: configuration.maximumConcurrentTasks)
        rates = RateGovernor(sessionLimit: configuration.maximumBytesPerSecond,
                             receiveBufferSize: configuration.receiveBufferSize)
        multi = startsThread ? curl_multi_init() : nil
        guard let multi else { return }
        _ = sluice_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, configuration.httpMaximumConnectionsPerHost)
        _ = sluice_multi_setopt_long(multi, CURLMOPT_PIPELINING, configuration.multiplexingEnabled ? 2 : 0)  // CURLPIPE_MULTIPLEX
        inbox.withLock { $0.closed = false }
        if !LoopThread.start({ [self] in run() }) { close() }
    }

    /// Queues a command for the loop; false when the loop has ended and the command was dropped (a task it
    /// would have started fails, later, on the delegate queue). It never calls back into the sender, so a task
    /// may send under its own lock, which is what keeps its commands in the order of its state changes.
    @discardableResult
    func send(_ command: Command) -> Bool {
        let accepted = inbox.withLock { box -> Bool in
            guard !box.closed, let multi else { return false }
            box.commands.append(command)
            if !box.wakePending && (box.batchThreads.isEmpty || !box.batchThreads.contains(UInt(pthread_self()))) {
                box.wakePending = true
                _ = curl_multi_wakeup(multi)  // under the lock: the loop cannot free the handle meanwhile
            }
            return true
        }
        if !accepted { refuse(command) }
        return accepted
    }

    var isClosed: Bool { inbox.withLock { $0.closed } }

    private func refuse(_ command: Command) {
        guard case .start(let task) = command else { return }
        let error = TransferError(.unknown, "the transfer thread is not running", failingURL: task.originalRequest.url)
        delegateQueue.async { task.finish(error: error) }  // not here: the sender may hold the task's lock
    }

    /// Frees the multi handle and closes the inbox in one step; commands that came too late are refused.
    private func close() {
        let late = inbox.withLock { box -> [Command] in
            if let multi, !box.closed { curl_multi_cleanup(multi) }
            box.closed = true
            defer { box.commands = [] }
            return box.commands
        }
        for command in late { refuse(command) }
    }

    /// Runs `block` on the delegate queue after everything delivered before it. On the loop thread it joins the
    /// turn's batch; from any other thread it is dispatched at once.
    func deliver(_ block: @escaping @Sendable () -> Void) {
        if isLoopThread {
            outbox.append(block)
        } else {
            delegateQueue.async(execute: block)
        }
    }

    var isLoopThread: Bool { loopThread.load(ordering: .relaxed) == UInt(pthread_self()) }

    /// A command the loop thread knows it must apply without asking anyone (a response no delegate is asked
    /// about is allowed): kept for the next turn, with no lock, no wakeup and no trip through the delegate queue,
    /// which delayed every download by a turn of that queue's work.
    func answer(_ command: Command) {
        assertOnLoopThread("an answer of the loop's own")
        ownCommands.append(command)
    }

    /// Debug builds stop at once when loop-thread state is touched from another thread (free in release).
    @inline(__always)
    func assertOnLoopThread(_ what: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) {
        assert(isLoopThread, "\(what()) belongs to the transfer loop's thread", file: file, line: line)
    }

    private func flushOutbox() {
        guard !outbox.isEmpty else { return }
        let batch = outbox
        outbox.removeAll(keepingCapacity: true)
        inbox.withLock { $0.batchesOut += 1 }
        delegateQueue.async { [self] in deliverBatch(batch) }
    }

    /// Runs one turn's delegate calls; the commands they send wake the loop once, at the end, with all of them.
    private func deliverBatch(_ batch: [@Sendable () -> Void]) {
        let thread = UInt(pthread_self())
        inbox.withLock { $0.batchThreads.append(thread) }
        for block in batch { block() }
        inbox.withLock { box in
            if let index = box.batchThreads.firstIndex(of: thread) { box.batchThreads.remove(at: index) }
            box.batchesOut -= 1
            guard !box.commands.isEmpty, !box.wakePending, !box.closed, let multi else { return }
            box.wakePending = true
            _ = curl_multi_wakeup(multi)
        }
    }

    /// The longest the loop sleeps while a batch is out: how late a command from a delegate that blocks inside a
    /// batch (waiting for the loop) is applied. A batch that ends wakes the loop at once.
    static let batchWaitCap: Int32 = 10

    // MARK: The loop

    private func run() {
        guard let multi else { return }
        loopThread.store(UInt(pthread_self()), ordering: .relaxed)
        var pending: [Command] = []
        var running: Int32 = 0
        var idleSince: UInt64?
        while true {
            // The loop's own answers first: they were made during an earlier turn than anything sent since.
            swap(&ownCommands, &pending)
            for command in pending { apply(command) }
            pending.removeAll(keepingCapacity: true)
            inbox.withLock { box in
                box.wakePending = false  // a later send wakes the next poll; an earlier one is in `pending`
                swap(&box.commands, &pending)
            }
            for command in pending { apply(command) }
            pending.removeAll(keepingCapacity: true)
            let turn = uptimeNow()
            rates.share(transfers.values, now: turn)
            for t in rates.pacedDue(now: turn) { settle(t, t.rateCaughtUp(now: turn)) }
            _ = curl_multi_perform(multi, &running)
            for t in transfers.values { t.flushPending() }
            collectFinished(multi)
            rates.account(transfers.values)
            let now = uptimeNow()
            if now >= nextTimeoutCheck {
                checkTimeouts(now: now)
                nextTimeoutCheck = now + 100_000_000
            }
            if !heldForBudget.isEmpty { startHeldForBudget(now: now) }  // after the check: they start after `now`
            let localFlowing = pumpLocalSources()
            flushOutbox()
            if shuttingDown && transfers.isEmpty && awaitingStream.isEmpty && waitingTasks.isEmpty && places.isEmpty
                && heldForBudget.isEmpty {
                close()
                return
            }
            let idle = transfers.isEmpty && awaitingStream.isEmpty && waitingTasks.isEmpty && places.isEmpty
                && heldForBudget.isEmpty
            // Idle for a while: sleep until libcurl's next timer. Just idle (the next task of a busy caller is on its
            // way), at most a second, so that a wakeup lost anywhere costs a second and never an hour.
            if !idle { idleSince = nil } else if idleSince == nil { idleSince = now }
            let longIdle = idleSince.map { now &- $0 > 10_000_000_000 } ?? false
            var wait = localFlowing || !ownCommands.isEmpty ? 0 : idle ? (longIdle ? Self.idleWait(multi) : min(1000, Self.idleWait(multi))) : 100
            if wait > Self.batchWaitCap, inbox.withLock({ $0.batchesOut > 0 }) { wait = Self.batchWaitCap }
            if !heldForBudget.isEmpty {  // awake when the budget lets the held tasks start
                wait = min(wait, Int32(clamping: max(1, (rates.nanosecondsUntilStart + 999_999) / 1_000_000)))
            }
            _ = curl_multi_poll(multi, nil, 0, wait, nil)
        }
    }

    /// How long an idle loop sleeps: until libcurl's own next timer, else an hour. Every command wakes it at once
    /// (`curl_multi_wakeup`), so an idle session (a daemon with nothing to do) does not wake once a second.
    private static func idleWait(_ multi: UnsafeMutableRawPointer) -> Int32 {
        var milliseconds = -1
        _ = curl_multi_timeout(multi, &milliseconds)
        return milliseconds >= 0 ? Int32(min(milliseconds, 3_600_000)) : 3_600_000
    }

    private func apply(_ command: Command) {
        assertOnLoopThread("a loop command")
        switch command {
        case .start(let task):
            start(task)
        case .suspend(let id):
            if let t = transfers[id] {
                settle(t, t.suspend())
            } else if waitingTasks[id] != nil || places.isWaiting(id) || heldForBudget.contains(where: { $0.task.taskIdentifier == id }) {
                suspendedWhileWaiting.insert(id)
            }
        case .resume(let id):
            if let t = transfers[id] { settle(t, t.resume()) } else { suspendedWhileWaiting.remove(id) }
        case .drained(let id):
            if let t = transfers[id] { settle(t, t.drained()) }
        case .cancel(let id):
            if let t = transfers[id] {
                finish(t, .cancelled(t.task.currentRequest.url))
            } else if let waiting = awaitingStream.removeValue(forKey: id) {
                releaseConnection(of: id)
                waiting.task.finish(error: .cancelled(waiting.task.currentRequest.url))
                releasePlace(of: waiting.task)
            } else if let waiting = waitingTasks.removeValue(forKey: id) {
                _ = waitList.remove(id, from: waiting.origin)
                suspendedWhileWaiting.remove(id)
                waiting.task.finish(error: .cancelled(waiting.task.currentRequest.url))
                releasePlace(of: waiting.task)
            } else if let task = places.remove(id) {
                suspendedWhileWaiting.remove(id)
                task.finish(error: .cancelled(task.currentRequest.url))
            } else if let index = heldForBudget.firstIndex(where: { $0.task.taskIdentifier == id }) {
                endUnlaunched(heldForBudget.remove(at: index).task)
            }
        case .newBodyStream(let id, let stream):
            guard let waiting = awaitingStream.removeValue(forKey: id) else { return }
            guard let stream else {
                releaseConnection(of: id)
                waiting.task.finish(error: TransferError(
                    .requestBodyStreamExhausted, "the request body is needed again, and the delegate gave no new stream",
                    failingURL: waiting.task.currentRequest.url))
                return releasePlace(of: waiting.task)
            }
            waiting.task.body = .stream(stream)
            start(waiting.task)
            if waiting.suspended, let next = transfers[id] { settle(next, next.suspend()) }
        case .disposition(let id, let disposition):
            guard let t = transfers[id] else { return }
            switch disposition {
            case .allow:
                settle(t, t.allow())
            case .cancel:
                finish(t, .cancelled(t.task.currentRequest.url))
            case .becomeDownload:
                convert(t)
            }
        case .redirect(let id, let request):
            if let t = transfers[id] { settle(t, t.redirectAnswered(request)) }
        case .challenge(let id, let answer):
            guard let t = transfers[id] else { return }
            switch answer {
            case .cancel:
                finish(t, .cancelled(t.task.currentRequest.url))
            case .takeResponse:
                settle(t, t.challengeAnswered(resend: false))
            case .resend(let credential, let space):
                if space.authenticationMethod == .serverTrust {
                    guard credential.isServerTrust else { return settle(t, t.challengeAnswered(resend: false)) }
                    t.task.trustedServer = space
                } else if space.isProxy {
                    t.task.proxyCredential = (credential, space)
                } else {
                    t.task.serverCredential = (credential, space)
                }
                settle(t, t.challengeAnswered(resend: true))
            }
        case .convert(let id):
            if let t = transfers[id] { convert(t) }
        case .uploadReady(let id):
            transfers[id]?.uploadReady()
        case .fail(let id, let error):
            if let t = transfers[id] { finish(t, error) }
        case .rateLimitChanged(let id, let sessionLimit):
            if id == nil { rates.setSessionLimit(sessionLimit, now: uptimeNow()) } else { rates.transfersChanged() }
        case .appliedRateLimit(let id, let answer):
            rates.share(transfers.values, now: uptimeNow())  // a change sent just before is answered with its effect
            answer(transfers[id].flatMap { rates.limit(of: $0) })
        case .receiveBudget(let answer):
            rates.account(transfers.values)
            answer(rates.budget, heldForBudget.map(\.task.taskIdentifier))
        case .shutdown:
            shuttingDown = true
        }
    }

    /// Starts the task's request now, or lists it to wait for a connection to its origin. A task sent again
    /// (redirect, credential) to the origin whose connection it holds keeps it.
    private func start(_ task: SessionTask) {
        let id = task.taskIdentifier
        if !task.holdsPlace {
            guard places.admit(task) else { return }
            task.holdsPlace = true
        }
        let url = task.currentRequest.url
        let scheme = url.scheme?.lowercased() ?? ""  // once, for the origin and the transfer
        let origin = ConnectionWaitList.origin(of: url, scheme: scheme, configuration)
        if !heldOrigin.isEmpty, let held = heldOrigin[id], held == origin { return launch(task, scheme: scheme) }
        releaseConnection(of: id)
        if let origin {
            guard waitList.admit(id, to: origin, priority: task.priority) else {
                waitingTasks[id] = (task, origin)
                return
            }
            heldOrigin[id] = origin
        }
        launch(task, scheme: scheme)
    }

    /// The task no longer holds a connection to its origin: the waiting task first in line starts in its place.
    private func releaseConnection(of id: Int) {
        // An empty table is not asked: a lookup hashes its key even then (HTTP/2 tasks hold no origin).
        guard !heldOrigin.isEmpty, let origin = heldOrigin.removeValue(forKey: id), let next = waitList.release(origin),
              let waiting = waitingTasks.removeValue(forKey: next) else { return }
        heldOrigin[next] = origin
        launch(waiting.task)
        suspendIfAskedWhileWaiting(next)
    }

    /// A task suspended while it waited (for a place, its origin or the budget) is suspended once its transfer
    /// exists; one that goes on waiting (the budget's line) keeps the mark for when it starts.
    private func suspendIfAskedWhileWaiting(_ id: Int) {
        guard !suspendedWhileWaiting.isEmpty, let started = transfers[id], suspendedWhileWaiting.remove(id) != nil else { return }
        settle(started, started.suspend())
    }

    /// A task cancelled before its transfer began: it ends, and gives on the connection slot and the place it held.
    private func endUnlaunched(_ task: SessionTask) {
        let id = task.taskIdentifier
        suspendedWhileWaiting.remove(id)
        releaseConnection(of: id)
        task.finish(error: .cancelled(task.currentRequest.url))
        releasePlace(of: task)
    }

    /// Launches the tasks waiting for the session's receive budget, in the order they came, each charged an
    /// average transfer's bytes in advance, for as long as nothing is owed (all of them once the limit is lifted).
    private func startHeldForBudget(now: UInt64) {
        var started = 0
        while started < heldForBudget.count, let reserved = rates.reserveStart(now: now) {
            let (task, scheme) = heldForBudget[started]
            started += 1
            task.passedBudget = true
            if task.state == .canceling {
                // Cancelled while it waited, its own `.cancel` still on its way (a Ctrl-C cancels every task).
                rates.refund(reserved)
                endUnlaunched(task)
                continue
            }
            launch(task, scheme: scheme, reserved: reserved)
            suspendIfAskedWhileWaiting(task.taskIdentifier)
        }
        heldForBudget.removeFirst(started)
    }

    /// The task has ended: its place among the session's running tasks goes to the first in line, started now.
    /// A loop, not a recursion: a task that cannot launch gives its place on at once, and thousands may wait.
    private func releasePlace(of ended: SessionTask) {
        guard ended.holdsPlace else { return }
        ended.holdsPlace = false
        placesToGive += 1
        guard !givingPlaces else { return }  // the loop below, further up this stack, gives it
        givingPlaces = true
        defer { givingPlaces = false }
        while placesToGive > 0 {
            placesToGive -= 1
            guard let next = places.release() else { continue }
            let id = next.taskIdentifier
            if next.state == .canceling {
                // Cancelled while it waited (a Ctrl-C cancels every task in turn): it ends, never launched, and
                // its own `.cancel`, still on its way, finds nothing.
                suspendedWhileWaiting.remove(id)
                next.finish(error: .cancelled(next.currentRequest.url))
                placesToGive += 1
                continue
            }
            next.holdsPlace = true
            start(next)
            suspendIfAskedWhileWaiting(id)  // one that waits for its origin or the budget keeps the mark
        }
    }

    /// `scheme`: the request URL's, lowercased, when the caller has read it (preparing the task changes only headers).
    /// `reserved`: bytes the receive budget charged this start in advance (RateGovernor.reserveStart).
    private func launch(_ task: SessionTask, scheme: String? = nil, reserved: Int64 = 0) {
        // A first transfer with a session limit waits its turn in the budget's line; data: and file: URLs
        // receive nothing from the network and do not.
        if rates.budget != nil, !task.passedBudget {
            if !LocalSource.reads(scheme: scheme ?? task.currentRequest.url.scheme?.lowercased() ?? "") {
                return heldForBudget.append((task, scheme))
            }
        }
        let transfer: Transfer
        do {
            try task.prepareToStart()
            transfer = try Transfer(task: task, configuration: configuration, pool: pool, handles: handles, scheme: scheme)
        } catch {
            rates.refund(reserved)
            releaseConnection(of: task.taskIdentifier)
            task.finish(error: error)
            releasePlace(of: task)
            return
        }
        transfer.budgetCounted = reserved  // its first `reserved` bytes were charged already
        transfers[task.taskIdentifier] = transfer
        rates.transfersChanged()
        if transfers.count > mostTransfers, let multi {
            // libcurl keeps four idle connections for each transfer in hand *when one comes back*: after a moment
            // with few in hand (a queue that starts its next tasks from the delegate queue) it had closed what the
            // next tasks then opened again, 84 connections for `sluice -d -j 50` where 50 serve. Sized for the
            // most in hand so far, as libcurl's own rule at its peak, the cache keeps them (an idle connection
            // still goes after libcurl's maximum age, or when the server closes it).
            mostTransfers = transfers.count
            _ = sluice_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, 4 * mostTransfers)
        }
        if let easy = transfer.easy, let multi {
            let code = curl_multi_add_handle(multi, easy)
            if code != CURLM_OK {
                finish(transfer, TransferError(.unknown, String(cString: curl_multi_strerror(code)),
                                               failingURL: task.originalRequest.url))
            }
        } else {
            settle(transfer, transfer.startLocal())
        }
    }

    /// Follows a redirect with a new transfer for the same task. The old one goes, with the redirect's body; libcurl
    /// keeps its connection for the next request when that body was complete.
    private func follow(_ t: Transfer, to request: Request) {
        let task = t.task
        let from = task.currentRequest
        guard let scheme = request.url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return finish(t, TransferError(.unsupportedURL, "a redirect to \(request.url.absoluteString) was not followed: only http and https are",
                                           failingURL: from.url))
        }
        if Redirection.dropsBody(from: from, to: request) { task.sendsBody = false }
        sendAgain(t, to: request)
    }

    /// The task's request goes out again on a new transfer: to a redirect's target (counted as a redirect), or
    /// (nil) the same request with the credential a challenge's delegate gave. A streamed body cannot be read
    /// twice, so the delegate is asked for a new stream first (`needNewBodyStream`).
    private func sendAgain(_ t: Transfer, to next: Request?) {
        let task = t.task
        let suspended = t.isSuspended
        transfers.removeValue(forKey: t.id)
        retire(t)
        if let next {
            task.redirectCount += 1
            task.setCurrentRequest(next)
        }
        if task.sendsBody, let upload = task as? UploadTask, case .stream = upload.body {
            awaitingStream[task.taskIdentifier] = (upload, suspended)
            return upload.askForNewBodyStream()
        }
        start(task)
        if suspended, let started = transfers[task.taskIdentifier] { settle(started, started.suspend()) }
    }

    /// Hands a data task's transfer to a new download task, between two chunks: what the data task was allowed
    /// to receive goes to it, everything after to the download's file (at `.becomeDownload` that is the whole body:
    /// bytes gathered while the answer was awaited were never the data task's).
    private func convert(_ t: Transfer) {
        guard let dataTask = t.task as? DataTask else { return }  // already a download
        if dataTask.state == .canceling { return finish(t, .cancelled(dataTask.currentRequest.url)) }
        t.flushPending()
        let file: DownloadFile
        do {
            if let chosen = dataTask.downloadPartialFile, let made = try? DownloadFile.create(at: chosen, exclusive: true) {
                file = made
            } else {
                file = try DownloadFile.create(in: configuration.downloadDirectory)
            }
        } catch {
            return finish(t, TransferError(error.code, error.message, failingURL: dataTask.currentRequest.url))
        }
        let download = dataTask.session.continueAsDownload(dataTask, file: file, received: dataTask.countOfBytesReceived)
        download.transactions = dataTask.transactions  // the download's metrics include the requests before it
        download.redirectCount = dataTask.redirectCount
        download.startedAt = dataTask.startedAt
        transfers[t.id] = nil
        transfers[download.taskIdentifier] = t
        heldOrigin[download.taskIdentifier] = heldOrigin.removeValue(forKey: t.id)
        download.holdsPlace = dataTask.holdsPlace
        dataTask.holdsPlace = false
        dataTask.handOver(to: download)
        settle(t, t.adopt(download))
    }

    private func collectFinished(_ multi: UnsafeMutableRawPointer) {
        var easy: UnsafeMutableRawPointer?
        var code = CURLE_OK
        while sluice_multi_next_done(multi, &easy, &code) != 0 {
            guard let easy, let t = Transfer.owner(of: easy), transfers[t.id] === t else { continue }
            settle(t, t.ended(code))
        }
    }

    /// Reads one buffer of every flowing local body; true when some still flow, so the poll must not sleep.
    private func pumpLocalSources() -> Bool {
        var flowing = false
        for t in transfers.values where t.isLocalFlowing {
            settle(t, t.pumpLocal())
            if t.isLocalFlowing { flowing = true }
        }
        return flowing
    }

    private func checkTimeouts(now: UInt64) {
        for t in transfers.values {
            if let error = t.timeoutError(now: now) { finish(t, error) }
        }
    }

    /// Carries out what a transfer decided after an event.
    private func settle(_ t: Transfer, _ outcome: Transfer.Outcome) {
        switch outcome {
        case .continue: break
        case .finish(let error): finish(t, error)
        case .follow(let request): follow(t, to: request)
        case .resend: sendAgain(t, to: nil)
        }
    }

    /// Ends one request of a task (its last, or one a redirect replaces): out of the multi handle, its metrics
    /// kept on the task, its easy handle back for reuse.
    private func retire(_ t: Transfer) {
        if let easy = t.easy, let multi { curl_multi_remove_handle(multi, easy) }
        rates.forget(t)
        if let metrics = t.metrics() { t.task.transactions.append(metrics) }
        t.close()
    }

    private func finish(_ t: Transfer, _ error: TransferError?) {
        guard transfers.removeValue(forKey: t.id) != nil else { return }
        t.stopped()
        if error?.code != .cancelled { t.flushPending() }
        retire(t)
        releaseConnection(of: t.id)
        t.task.finish(error: error)
        releasePlace(of: t.task)  // after: the ended task's completion comes before its successor's
    }
}
