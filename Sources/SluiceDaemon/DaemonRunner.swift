// `sluice daemon`'s life: take the lock, recover what a crash left, open the store and the log, bring back the
// unfinished downloads, serve the socket until told to stop, then stop the transfers keeping their checkpoints.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import Logging
import SluiceEngine
import SluiceLock
import SluiceStore
import SluiceTUI

public struct DaemonSettings: Sendable {
    public var paths: DaemonPaths
    /// Where downloads go when a request names no place (absolute).
    public var outputDirectory: String
    public var jobs: Int
    /// Log to standard error as well as to the file.
    public var echoLog: Bool
    /// Commands run when tasks end (`--on-complete`...).
    public var hooks: TaskHooks
    /// A host's own limit of tasks at once and of a download's connections (the config file's host rules).
    public var hostLimit: @Sendable (String) -> Int?
    /// Seconds a transfer may go without a byte before it fails (the config file's `timeout`); nil: the engine's.
    public var requestTimeout: Double?
    /// All transfers together at most this many bytes a second (`--limit-rate`); nil: no limit.
    public var maximumBytesPerSecond: Int64?
    /// At most this many tasks of one host at once (the config file's `per-host`), unless the host has a rule.
    public var perHost = Int.max

    public init(paths: DaemonPaths, outputDirectory: String, jobs: Int, echoLog: Bool, hooks: TaskHooks = TaskHooks(),
                hostLimit: @escaping @Sendable (String) -> Int? = { _ in nil }, requestTimeout: Double? = nil) {
        self.requestTimeout = requestTimeout
        self.paths = paths
        self.outputDirectory = outputDirectory
        self.jobs = jobs
        self.echoLog = echoLog
        self.hooks = hooks
        self.hostLimit = hostLimit
    }
}

public enum DaemonRunner {
    /// The exit status of a daemon that found another one holding the lock (EX_TEMPFAIL): the launcher then
    /// simply talks to that one.
    public static let alreadyRunningStatus: Int32 = 75

    public enum Ending: Sendable {
        case stopped
        /// Another live daemon holds the lock (its pid when known).
        case alreadyRunning(pid: Int32?)
    }

    /// Runs until POST /stop, SIGTERM or SIGINT. `traceLine` is `TraceEncoder.line`.
    public static func run(_ settings: DaemonSettings,
                           traceLine: @escaping @Sendable (TaskEventRecord, UInt64) -> String) throws(DaemonFailure) -> Ending {
        let paths = settings.paths
        try paths.prepareRuntimeDirectory()
        let lock: DaemonLock
        switch try DaemonLock.acquire(paths.lock) {
        case .held(let pid): return .alreadyRunning(pid: pid)
        case .acquired(let taken): lock = taken
        }
        defer { lock.release() }
        // We hold the lock, so a socket file here is a dead daemon's: nobody answers on it.
        let stale = unlink(paths.socket) == 0

        let store: TaskStore
        do {
            store = try TaskStore(directory: paths.store)
        } catch {
            throw DaemonFailure("the task store in \(paths.store) cannot be used: \(error)")
        }
        let file = try LogFile(path: paths.log, echo: settings.echoLog)
        let logger = Logger(label: "sluice.daemon") { FileLogHandler(label: $0, file: file) }
        logger.info("starting", metadata: ["pid": "\(getpid())", "id": "\(paths.identifier)", "socket": "\(paths.socket)",
                                           "jobs": "\(settings.jobs)", "limit": "\(settings.maximumBytesPerSecond.map(String.init) ?? "none")",
                                           "per-host": "\(settings.perHost == .max ? "none" : String(settings.perHost))"])
        if stale { logger.notice("removed the socket a stopped daemon left behind") }
        if let notice = store.notice { logger.warning("\(notice)") }

        let records: [StoredTask]
        do {
            records = try store.all()
        } catch {
            throw DaemonFailure("cannot read the task store in \(paths.store): \(error)")
        }
        // The background session's cookies are kept with its store, as a browser's are: what a server set is sent
        // again after a restart. Saved a second after a change (one save for a burst) and at stop, so a kill -9
        // loses at most the last second, and an idle daemon has no timer at all.
        let cookies = CookieStorage()
        let cookieFile = paths.store + "/cookies.txt"
        do { try cookies.load(from: cookieFile) } catch { logger.warning("\(error.message); starting without cookies") }
        var configuration = SessionConfiguration.default
        configuration.httpCookieStorage = cookies
        if let timeout = settings.requestTimeout { configuration.timeoutIntervalForRequest = timeout }
        configuration.maximumBytesPerSecond = settings.maximumBytesPerSecond
        let saver = CookieSaver(cookies, to: cookieFile)
        cookies.onChange { saver.changed() }
        let app = TransferApp(outputDirectory: settings.outputDirectory, concurrency: settings.jobs, perHost: settings.perHost,
                              hostLimit: settings.hostLimit,
                              configuration: configuration, store: store, hooks: settings.hooks)
        let hub = DaemonHub(app: app, identifier: paths.identifier, traceLine: traceLine, logger: logger)
        let resumed = app.restore(records)
        if resumed > 0 { logger.info("resuming \(resumed) unfinished download(s)") }

        signal(SIGPIPE, SIG_IGN)
        // SIGINTs and SIGTERMs so far: one that comes while the daemon stops ends its waits (a SIGHUP does not).
        let insistence = Locked(0)
        let signals = [SIGTERM, SIGINT, SIGHUP].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                logger.info("signal \(number): stopping")
                if number != SIGHUP { insistence.withLock { $0 += 1 } }
                hub.requestStop()
            }
            source.resume()
            return source
        }
        defer { signals.forEach { $0.cancel() } }

        let server = try DaemonServer.start(path: paths.socket, hub: hub, logger: logger)
        logger.info("listening")
        hub.waitForStopRequest()

        logger.info("stopping: downloads keep their partial files and checkpoints")
        hub.finishSubscribers()
        server.stop()
        // Unlinked while the lock is still ours, so it can never be a newer daemon's socket.
        unlink(paths.socket)
        hub.settleStore()
        // The first signal stopped the daemon (when one did); any other means now.
        let stopper = min(insistence.withLock { $0 }, 1)
        let giveUp = { insistence.withLock { $0 } > stopper }
        app.cancelAll()
        app.waitUntilStopped(seconds: 10, unless: giveUp)
        if !app.waitForHooks(unless: giveUp) { app.stopHooks() }
        app.session.invalidateAndCancel()
        store.flush()
        do { try cookies.save(to: cookieFile) } catch { logger.warning("\(error.message)") }
        logger.info("stopped")
        return .stopped
    }
}
