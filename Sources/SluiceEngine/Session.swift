// A session: a configuration, a delegate and its serial queue, the tasks it made, and one transfer loop.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import SluiceLock

public final class Session: Sendable {
    /// A session with the default configuration and no delegate, for completion-handler and async use.
    /// Invalidating it has no effect, as URLSession documents for its shared session.
    public static let shared = Session(configuration: .default, delegate: nil, delegateQueue: nil, eventMonitor: nil,
                                       startsLoop: true, isShared: true)

    public let configuration: SessionConfiguration
    /// Released once `didBecomeInvalidWithError` has been delivered, which breaks the cycle a delegate that
    /// keeps its session would form.
    public var delegate: SessionDelegate? { delegateBox.withLock { $0.delegate } }
    private let delegateBox: Locked<Delegates>

    /// The delegate and what it is as a task's delegate, cast once: a cast to a protocol is a lookup in the
    /// runtime's conformance cache (about 370 instructions), and every task asked two of them as it started.
    struct Delegates {
        var delegate: SessionDelegate?
        var asTaskDelegate: SessionTaskDelegate?
        var asDataDelegate: SessionDataDelegate?
        var holdsCredit = false

        init(_ delegate: SessionDelegate?) {
            self.delegate = delegate
            asTaskDelegate = delegate as? SessionTaskDelegate
            asDataDelegate = delegate as? SessionDataDelegate
            holdsCredit = asTaskDelegate is CreditHolder
        }
    }

    /// The delegate's roles for a task that has no delegate of its own (all nil once it has been released).
    var delegates: Delegates { delegateBox.withLock { $0 } }
    var delegateAsTaskDelegate: SessionTaskDelegate? { delegateBox.withLock { $0.asTaskDelegate } }
    var delegateAsDataDelegate: SessionDataDelegate? { delegateBox.withLock { $0.asDataDelegate } }
    private let isShared: Bool
    /// Serial: every delegate call and event of this session runs here, one at a time, in order.
    public let delegateQueue: DispatchQueue
    public let eventMonitor: TaskEventMonitor?
    let loop: TransferLoop
    private let registry = Locked(Registry())

    private struct Registry {
        var nextIdentifier = 1
        var tasks: [Int: SessionTask] = [:]
        /// Tasks whose completion is owed before the session may become invalid: the resumed ones, and while
        /// `invalidateAndCancel` runs, every one.
        var started: Set<Int> = []
        var invalidation = Invalidation.none
    }

    private enum Invalidation { case none, finishing, done }

    public convenience init(configuration: SessionConfiguration = .default, delegate: SessionDelegate? = nil,
                            delegateQueue: DispatchQueue? = nil, eventMonitor: TaskEventMonitor? = nil) {
        self.init(configuration: configuration, delegate: delegate, delegateQueue: delegateQueue,
                  eventMonitor: eventMonitor, startsLoop: true)
    }

    /// `startsLoop: false` stands for a system that gives no thread: every task fails as it starts.
    init(configuration: SessionConfiguration, delegate: SessionDelegate?, delegateQueue: DispatchQueue?,
         eventMonitor: TaskEventMonitor?, startsLoop: Bool, isShared: Bool = false) {
        // A programming error, not input: a background session's tasks live in the daemon, not in this process.
        precondition(configuration.identifier == nil,
                     "SessionConfiguration.background(identifier:) is opened with BackgroundSession (module SluiceDaemon), not Session")
        self.configuration = configuration
        delegateBox = Locked(Delegates(delegate))
        self.isShared = isShared
        self.delegateQueue = delegateQueue ?? DispatchQueue(label: "sluice.session.delegate")
        self.eventMonitor = eventMonitor
        loop = TransferLoop(configuration: configuration, delegateQueue: self.delegateQueue, startsThread: startsLoop)
    }

    /// A session nobody invalidated lets its loop thread go. (Running tasks keep their session alive, so the
    /// loop has nothing left to do by now.)
    deinit {
        loop.send(.shutdown)
    }

    // MARK: Making tasks (all created suspended)

    public func dataTask(with request: Request) -> DataTask {
        register { DataTask(identifier: $0, request: request, session: self) }
    }

    public func dataTask(with url: URL) -> DataTask { dataTask(with: Request(url: url)) }

    /// The handler gets the whole body; the delegate's data methods are not called for this task.
    public func dataTask(with request: Request,
                         completionHandler: @escaping @Sendable (Data?, Response?, TransferError?) -> Void) -> DataTask {
        let task = dataTask(with: request)
        task.internalDelegate = BodyCollector(completionHandler)
        return task
    }

    public func dataTask(with url: URL,
                         completionHandler: @escaping @Sendable (Data?, Response?, TransferError?) -> Void) -> DataTask {
        dataTask(with: Request(url: url), completionHandler: completionHandler)
    }

    // MARK: Tasks and invalidation

    /// The outstanding tasks (running or suspended; not cancelled, not completed), on the delegate queue.
    public func getAllTasks(completionHandler: @escaping @Sendable ([SessionTask]) -> Void) {
        let tasks = registry.withLock { Array($0.tasks.values) }  // states read outside: tasks lock, then registry
            .filter { $0.state == .running || $0.state == .suspended }
            .sorted { $0.taskIdentifier < $1.taskIdentifier }
        delegateQueue.async { completionHandler(tasks) }
    }

    public var allTasks: [SessionTask] {
        get async {
            await withCheckedContinuation { continuation in getAllTasks { continuation.resume(returning: $0) } }
        }
    }

    /// Lets running tasks finish, refuses new ones, then calls `didBecomeInvalidWithError(nil)`.
    public func finishTasksAndInvalidate() {
        guard !isShared else { return }
        let idle = registry.withLock { r -> Bool in
            guard r.invalidation == .none else { return false }
            r.invalidation = .finishing
            return r.started.isEmpty
        }
        if idle { becomeInvalid() }
    }

    /// Cancels every task, the never resumed too, and calls `didBecomeInvalidWithError(nil)` after the last
    /// of them has reported `didCompleteWithError`.
    public func invalidateAndCancel() {
        guard !isShared else { return }
        let tasks = registry.withLock { r -> [SessionTask] in
            guard r.invalidation == .none else { return [] }
            r.invalidation = .finishing
            r.started.formUnion(r.tasks.keys)  // a never resumed task's completion is owed before invalidation too
            return r.tasks.values.sorted { $0.taskIdentifier < $1.taskIdentifier }
        }
        for task in tasks { task.cancel() }
        // Each cancellation queued its completion (or the loop will); invalidation is queued behind them.
        if registry.withLock({ $0.invalidation == .finishing && $0.started.isEmpty }) { becomeInvalid() }
    }

    // MARK: Engine-internal

    func register<T: SessionTask>(started: Bool = false, _ make: (Int) -> T) -> T {
        registry.withLock { r in
            let task = make(r.nextIdentifier)
            r.nextIdentifier += 1
            r.tasks[task.taskIdentifier] = task
            if started { r.started.insert(task.taskIdentifier) }
            return task
        }
    }

    /// Registers a first resume with the loop; false when the session no longer takes tasks.
    func taskStarted(_ task: SessionTask) -> Bool {
        let accepted = registry.withLock { r -> Bool in
            guard r.invalidation == .none else { return false }
            r.started.insert(task.taskIdentifier)
            return true
        }
        if accepted { loop.send(.start(task)) }
        return accepted
    }

    /// Called on the delegate queue after a task's last delegate call.
    func taskCompleted(_ task: SessionTask) {
        let nowIdle = registry.withLock { r -> Bool in
            r.tasks[task.taskIdentifier] = nil
            r.started.remove(task.taskIdentifier)
            return r.invalidation == .finishing && r.started.isEmpty
        }
        if nowIdle { becomeInvalid() }
    }

    private func becomeInvalid() {
        let first = registry.withLock { r -> Bool in
            guard r.invalidation != .done else { return false }
            r.invalidation = .done
            return true
        }
        guard first else { return }
        loop.send(.shutdown)
        delegateQueue.async { [self] in
            delegate?.urlSession(self, didBecomeInvalidWithError: nil)
            delegateBox.withLock { $0 = Delegates(nil) }
        }
    }
}
