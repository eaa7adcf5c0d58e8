// The session delegate behind the UI: gives each row a stable id whatever engine task carries it now, starts tasks
// in turn, holds dispositions the user answers, keeps a data task's bytes so a conversion can put them first,
// checkpoints downloads beside their files, and saves finished downloads under safe, never-overwriting names.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import SluiceEngine
import SluiceViewModel
import SluiceLock

final class TUIDelegate: SessionDataDelegate, SessionDownloadDelegate, Sendable {
    /// A data task keeps at most this many received bytes for a later conversion...
    static let keepLimit = 32 << 20
    /// ...and all of them together at most this many (see docs/decisions.md: past either, `d` saves the rest).
    let keepTotalLimit: Int
    private struct State {
        var rows: [Int: ManagedTask] = [:]
        /// The rows whose current task has yet to return from `didCompleteWithError` (or, for a data task that
        /// became a download, to hand over): asking whether everything ended reads this, not every row.
        var open: Set<Int> = []
        /// Engine task id to row id: a row keeps its id across conversions, retries and restarts.
        var rowOfTask: [Int: Int] = [:]
        var nextRow = 1
        /// Some row is a download the app placed (quitting keeps those to resume).
        var managesDownloads = false
        /// The app's downloads under way, by URL: the same URL added again is the same row.
        var downloadRows: [URL: Int] = [:]
        /// The targets of the app's downloads (their partial files are theirs for as long as the app runs).
        var targets: Set<String> = []
        /// Where the download a data task's row is becoming goes, until `didBecome downloadTask`.
        var converting: [Int: DownloadCompanions] = [:]
        var asking: Set<Int> = []
        var handlers: [Int: @Sendable (ResponseDisposition) -> Void] = [:]
        var kept: [Int: KeptBytes] = [:]
        var keptTotal = 0
        var overflowed: Set<Int> = []
        var queue: StartQueue
        /// Retries made so far for a row, and when its first attempt started (wall clock).
        var retries: [Int: (made: Int, since: Double)] = [:]
        /// Rows waiting out a retry's delay: which wait (a later one replaces it) and what to continue from.
        var waiting: [Int: (wait: UInt64, resumeData: Data?)] = [:]
        var waits: UInt64 = 0
        /// Quitting: nothing starts again.
        var stopping = false
        /// Downloads with bytes on disk that no checkpoint names yet, and whether the sweep that writes them runs.
        var due: Set<Int> = []
        var sweeping = false
        /// Rows whose completion the model may already show while the delegate has yet to decide on a retry.
        var deciding: Set<Int> = []
        /// Where each finished download was put, for the hooks told of its end.
        var saved: [Int: String] = [:]
        /// Rows taking a new URL (`refresh`): their old task's end is not the row's (no retry, no hook, files kept).
        var refreshing: Set<Int> = []

        /// Lets go of a row's kept bytes; true when it had stopped keeping them for lack of room.
        mutating func release(_ id: Int) -> Bool {
            if let bytes = kept.removeValue(forKey: id) { keptTotal -= bytes.count }
            return overflowed.remove(id) != nil
        }

        func row(of task: SessionTask) -> Int { rowOfTask[task.taskIdentifier] ?? task.taskIdentifier }
    }

    private let state: Locked<State>
    private let outputDirectory: String
    private let post: @Sendable (ModelEvent) -> Void
    /// Which failures are tried again, for downloads and for data tasks (nil: never).
    private let retryPolicies: RetryPolicies
    /// Makes a row's next attempt: a new engine task carrying the same request, continuing from the resume data
    /// when there is some. Set by the app once its session exists.
    let remake = Locked<(@Sendable (ManagedTask, Data?) -> SessionTask?)?>(nil)
    /// Claims a new name for a download whose name another program took before it started: nil when there is
    /// none. Set by the app, which knows how it places downloads.
    let reclaim = Locked<(@Sendable (ManagedTask) -> DownloadCompanions.Claim?)?>(nil)
    /// Told of each checkpoint written, to keep it in the store as well.
    let onCheckpoint = Locked<(@Sendable (Int, Data) -> Void)?>(nil)
    /// Told when a row has ended for good (no retry follows), and whether nothing else is left to run.
    let onEnded = Locked<(@Sendable (EndedTask, _ queueEmpty: Bool) -> Void)?>(nil)
    /// Told when a completion leaves the queue with nothing running or waiting and no retry pending (after that
    /// task's events are posted): the screen's loop looks at once (see `InterfaceDriver.onIdle`).
    let onIdle = Locked<(@Sendable () -> Void)?>(nil)
    /// Gives a new row its id: the store's, when there is one, so that ids mean the same task across runs.
    private let allocateRow: (@Sendable () -> Int?)?

    /// A host's own limit of tasks at once, in place of `perHost` (a config file's host rule).
    let hostLimit: @Sendable (String) -> Int?

    /// At most `concurrency` tasks transfer at once, `perHost` per server (or `hostLimit`'s answer for it); the
    /// others wait in the order they were added.
    init(outputDirectory: String, concurrency: Int, perHost: Int = .max, hostLimit: @escaping @Sendable (String) -> Int? = { _ in nil },
         keepTotalLimit: Int = 64 << 20, retries: RetryPolicies = RetryPolicies(), allocateRow: (@Sendable () -> Int?)? = nil,
         post: @escaping @Sendable (ModelEvent) -> Void) {
        self.hostLimit = hostLimit
        self.keepTotalLimit = keepTotalLimit
        retryPolicies = retries
        self.outputDirectory = outputDirectory
        self.post = post
        self.allocateRow = allocateRow
        state = Locked(State(queue: StartQueue(limit: concurrency, perHost: perHost)))
    }

    /// A new row id, for a task about to be tracked.
    func newRow() -> Int {
        if let id = allocateRow?() {
            state.withLock { $0.nextRow = max($0.nextRow, id + 1) }
            return id
        }
        return state.withLock { s in
            defer { s.nextRow += 1 }
            return s.nextRow
        }
    }

    /// Registers a task as row `row`'s (a new one, or one the store brought back); true when it may start now,
    /// false when it waits its turn.
    func track(_ managed: ManagedTask, asks: Bool, queued: Bool = true) -> Bool {
        let host = managed.request.url.host
        let limit = host.flatMap(hostLimit)  // the config's rule, looked up before the lock, not under it
        return state.withLock { s in
            s.rows[managed.row] = managed
            s.open.insert(managed.row)  // a task just made, or brought back: its end is to come
            if managed.companions != nil {
                s.managesDownloads = true
                s.downloadRows[managed.request.url] = managed.row
                if let target = managed.companions?.target { s.targets.insert(target) }
            }
            if let task = managed.task { s.rowOfTask[task.taskIdentifier] = managed.row }
            s.nextRow = max(s.nextRow, managed.row + 1)
            if asks { s.asking.insert(managed.row) }
            guard queued else { return false }
            return s.queue.add(managed.row, host: host, hostLimit: limit)
        }
    }

    /// Room for `count` more downloads at once (a list being added): each table grew by doubling, every growth
    /// hashing again every row it held.
    func reserve(downloads count: Int) {
        state.withLock { s in
            s.rows.reserveCapacity(s.rows.count + count)
            s.open.reserveCapacity(s.open.count + count)
            s.rowOfTask.reserveCapacity(s.rowOfTask.count + count)
            s.downloadRows.reserveCapacity(s.downloadRows.count + count)
            s.targets.reserveCapacity(s.targets.count + count)
            s.queue.reserve(count)
        }
    }

    /// Old-style registration (tests): the row is the task's own id.
    func track(_ task: SessionTask, asks: Bool) -> Bool {
        track(ManagedTask(row: task.taskIdentifier, task: task, request: task.originalRequest), asks: asks)
    }

    /// The engine's event with the row's id in place of the task's (a conversion's new task gets its row here,
    /// just before its delegate call).
    func translate(_ record: TaskEventRecord) -> TaskEventRecord {
        let row = state.withLock { s in
            let row = s.rowOfTask[record.taskIdentifier] ?? record.taskIdentifier
            // Its completion is posted before the delegate decides on a retry: until then the row is not done.
            if case .didCompleteWithError = record.event { s.deciding.insert(row) }
            return row
        }
        var event = record.event
        if case .didBecomeDownloadTask(let newTask) = event {
            let newRow = newRow()
            state.withLock { $0.rowOfTask[newTask] = newRow }
            event = .didBecomeDownloadTask(newRow)
        }
        return TaskEventRecord(taskIdentifier: row, uptimeNanoseconds: record.uptimeNanoseconds, event: event)
    }

    /// Bytes kept for conversions, all tasks together, and how many tasks stopped keeping for lack of room.
    var kept: (total: Int, overflowed: Int) { state.withLock { ($0.keptTotal, $0.overflowed.count) } }

    func stopStarting() {
        state.withLock { s in
            s.stopping = true
            s.queue.stopStarting()
            s.waiting.removeAll()
        }
    }

    func isQueued(_ id: Int) -> Bool { state.withLock { $0.queue.isWaiting(id) } }

    /// The rows waiting their turn, first first.
    var queued: [Int] { state.withLock { $0.queue.queued } }

    /// The user resumed a task: if it was waiting its turn, it no longer is.
    func startedByUser(_ id: Int) { state.withLock { $0.queue.startedByUser(id) } }

    /// The user suspended a task: its slot goes to the next in line, which is resumed.
    func suspendedByUser(_ id: Int) {
        let starting = state.withLock { s in s.queue.suspendedByUser(id).compactMap { s.rows[$0]?.task } }
        for next in starting { next.resume() }
    }

    /// A new limit of transfers at once; tasks it lets start are resumed.
    func setConcurrency(_ limit: Int) {
        let starting = state.withLock { s in s.queue.setLimit(limit).compactMap { s.rows[$0]?.task } }
        for next in starting { next.resume() }
    }

    var managesDownloads: Bool { state.withLock { $0.managesDownloads } }

    /// A row that looks finished may still be tried again: a retry is being decided or waited for, or a refresh is
    /// between stopping the row's task and starting it again from the new URL.
    var hasRetriesInHand: Bool { state.withLock { !$0.deciding.isEmpty || !$0.waiting.isEmpty || !$0.refreshing.isEmpty } }

    /// A download of this process has its partial file at `target` + .sluice-part.
    func holds(target: String) -> Bool { state.withLock { $0.targets.contains(target) } }

    /// The data task of row `id` is about to become a download written beside `companions.target`.
    func converting(_ id: Int, into companions: DownloadCompanions) {
        state.withLock { s in
            s.converting[id] = companions
            s.targets.insert(companions.target)
        }
    }

    /// The row's response is held for the user's answer (`a`/`c`/`d`).
    func isAwaitingAnswer(_ id: Int) -> Bool { state.withLock { $0.handlers[id] != nil } }

    /// The row of the app's download of `url` that is still under way, if any.
    func downloadRow(for url: URL) -> Int? { state.withLock { $0.downloadRows[url] } }

    var concurrency: Int { state.withLock { $0.queue.limit } }

    /// Moves a queued row towards the front (positive) or back; false when it is not queued or cannot move.
    func move(_ id: Int, by step: Int) -> Bool { state.withLock { $0.queue.move(id, by: step) } }

    func task(_ id: Int) -> SessionTask? {
        if case .live(let task) = carrier(id) { return task }
        return nil
    }

    /// What carries row `id` now: nothing (no such row), its engine task, or nothing any more because it has ended
    /// for good (see `ManagedTask.task`).
    func carrier(_ id: Int) -> RowCarrier {
        state.withLock { s in
            guard let managed = s.rows[id] else { return .none }
            return managed.task.map { .live($0) } ?? .ended(managed.kind)
        }
    }

    /// A row's own receive limit, on its transfer now and on any later attempt; false for no such row.
    func setRateLimit(_ id: Int, _ limit: Int64?) -> Bool {
        guard let task = state.withLock({ s -> SessionTask? in
            s.rows[id]?.rateLimit = limit
            return s.rows[id]?.task
        }) else { return false }
        task.maximumBytesPerSecond = limit
        return true
    }

    func managed(_ id: Int) -> ManagedTask? { state.withLock { $0.rows[id] } }

    /// The row is gone from the list: its companions, which stay on disk (nil for a data task).
    func forget(_ id: Int) -> DownloadCompanions? {
        state.withLock { s in
            guard let row = s.rows.removeValue(forKey: id) else { return nil }
            s.open.remove(id)
            if let task = row.task { s.rowOfTask[task.taskIdentifier] = nil }
            return row.companions
        }
    }

    /// Every row's task has ended and made its last delegate call. The engine marks a task completed before its
    /// `didCompleteWithError` runs, and that call writes a stopped download's last checkpoint: a quit that exited
    /// on the state alone lost it (a `.sluice-resume.new` cut off before its rename). The open rows are counted as
    /// they change: a look at every row, asked several times on the way out, copied each row (its request, its
    /// companions) and took each task's lock, about a millisecond a look for 2,000 rows.
    var allTasksCompleted: Bool { state.withLock { $0.open.isEmpty } }

    /// The tasks not completed yet, their rows, and whether each is a download (keeps its file and checkpoint on a
    /// quit).
    var unfinishedTasks: [(row: Int, task: SessionTask, keepsFile: Bool)] {
        state.withLock { s in
            // A row that is not open has a completed task.
            s.open.compactMap { id in
                s.rows[id].flatMap { row in row.task.flatMap { $0.state == .completed ? nil : (row.row, $0, row.companions != nil) } }
            }
        }
    }

    var managedTasks: [ManagedTask] { state.withLock { Array($0.rows.values) } }

    /// Answers a held response; false when the task is not waiting for one.
    func answer(_ id: Int, _ disposition: ResponseDisposition) -> Bool {
        guard let handler = state.withLock({ $0.handlers.removeValue(forKey: id) }) else { return false }
        handler(disposition)
        return true
    }

    // MARK: Delegate calls (delegate queue)

    func urlSession(_ session: Session, dataTask: DataTask, didReceive response: Response,
                    completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) {
        let capacity = min(Self.keepLimit, response.expectedContentLength >= 0 ? Int(response.expectedContentLength) : Self.keepLimit)
        let asks = state.withLock { s -> Bool in
            let id = s.row(of: dataTask)
            _ = s.release(id)
            s.kept[id] = KeptBytes(capacity: capacity)  // a new part starts a new body
            guard s.asking.contains(id) else { return false }
            s.handlers[id] = completionHandler
            return true
        }
        if !asks { completionHandler(.allow) }
    }

    func urlSession(_ session: Session, dataTask: DataTask, didReceive data: Data) {
        state.withLock { s in
            let id = s.row(of: dataTask)
            guard !s.overflowed.contains(id), let kept = s.kept[id] else { return }
            if s.keptTotal + data.count > keepTotalLimit || !kept.append(data) {
                _ = s.release(id)
                s.overflowed.insert(id)
                return
            }
            s.keptTotal += data.count
        }
    }

    func urlSession(_ session: Session, dataTask: DataTask, didBecome downloadTask: DownloadTask) {
        let (kept, lost, newRow) = state.withLock { s -> (Data, Bool, Int) in
            let old = s.row(of: dataTask)
            let new = s.row(of: downloadTask)  // given by `translate` just before this call
            // The engine wrote where the app chose unless another program took the name in between.
            let companions = s.converting.removeValue(forKey: old).flatMap { downloadTask.conversionFile == $0.partialPath ? $0 : nil }
            s.rows[new] = ManagedTask(row: new, task: downloadTask, request: s.rows[old]?.request ?? dataTask.originalRequest,
                                      kind: .download, companions: companions)
            s.open.insert(new)
            s.queue.handedOver(from: old, to: new)
            s.open.remove(old)  // the data task makes no more delegate calls
            let bytes = s.kept[old]?.take() ?? Data()
            s.keptTotal -= bytes.count
            return (bytes, s.release(old), new)
        }
        if !kept.isEmpty { downloadTask.prependReceivedData(kept) }
        // What came before the conversion is on disk from now on, even if nothing more comes (a stalled server).
        checkpoint(downloadTask, force: true)
        if lost {
            post(.note(id: newRow, "the first \(ByteCountText.format(dataTask.countOfBytesReceived)) were shown but not kept; the file holds the rest"))
        }
    }

    func urlSession(_ session: Session, downloadTask: DownloadTask, didResumeAtOffset fileOffset: Int64, expectedTotalBytes: Int64) {
        checkpoint(downloadTask, force: true)  // the new response's validators
    }

    func urlSession(_ session: Session, downloadTask: DownloadTask, didWriteData bytesWritten: Int64,
                    totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {
        checkpoint(downloadTask, force: false)
    }

    /// A managed download's resume state goes to disk (after the bytes it names) at most a second after bytes
    /// arrived: a kill -9 then loses at most the last second. Not with the first byte: a download that ends within
    /// the second (most small files) never pays for the two fsyncs. Bytes not yet checkpointed put the row in
    /// `due`, which one sweep a second writes out, so a download whose bytes stop coming (a stalled server) keeps
    /// what came; the sweep runs only while some row is due.
    private func checkpoint(_ task: DownloadTask, force: Bool) {
        let now = DispatchTime.now().uptimeNanoseconds
        let (companions, startSweep) = state.withLock { s -> (DownloadCompanions?, Bool) in
            let id = s.row(of: task)
            guard let managed = s.rows[id], let companions = managed.companions, managed.task === task else { return (nil, false) }
            if force {
                s.rows[id]?.checkpoints.taken(now: now)
            }
            if force || s.rows[id]?.checkpoints.bytesArrived(now: now) == true {
                s.rows[id]?.hasCheckpoint = true
                s.due.remove(id)
                return (companions, false)
            }
            s.due.insert(id)
            defer { s.sweeping = true }
            return (nil, !s.sweeping)
        }
        if startSweep { scheduleSweep() }
        guard let companions else { return }
        let id = state.withLock { $0.row(of: task) }
        let told = onCheckpoint.withLock { $0 }
        task.checkpoint { data in
            guard let data else { return }
            companions.saveResume(data)
            told?(id, data)
        }
    }

    private func scheduleSweep() {
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(CheckpointClock.interval))) { [weak self] in
            self?.sweep()
        }
    }

    /// Checkpoints the rows whose bytes have waited a second; runs again while any row is due.
    private func sweep() {
        let now = DispatchTime.now().uptimeNanoseconds
        let (ready, again) = state.withLock { s -> ([DownloadTask], Bool) in
            var ready: [DownloadTask] = []
            for id in s.due {
                guard let managed = s.rows[id], let task = managed.task as? DownloadTask, task.state != .completed else {
                    s.due.remove(id)
                    continue
                }
                if managed.checkpoints.isDue(now: now) { ready.append(task) }
            }
            s.sweeping = !s.due.isEmpty
            return (ready, s.sweeping)
        }
        for task in ready { checkpoint(task, force: true) }
        if again { scheduleSweep() }
    }

    func urlSession(_ session: Session, downloadTask: DownloadTask, didFinishDownloadingTo location: URL) {
        let (id, companions, hasCheckpoint) = state.withLock { s in
            let id = s.row(of: downloadTask)
            s.due.remove(id)
            return (id, s.rows[id]?.companions, s.rows[id]?.hasCheckpoint ?? false)
        }
        if let status = downloadTask.response?.statusCode, status >= 400, companions != nil {
            // An error page is not the file asked for: the row says which status, nothing is saved.
            return
        }
        let placed: Result<String, PlacementError>
        if let companions, let named = Self.serverName(downloadTask.response), named != companions.name {
            // The server named the file (Content-Disposition): that name, as aria2 and curl -J use it; the
            // partial file kept the URL's, which a rerun looks for before any response.
            placed = DownloadPlacement.link(location.path, into: companions.directory, suggested: named)
        } else if let companions {
            placed = companions.linkIn(from: location.path)  // the engine removes the partial file after this call
        } else {
            placed = DownloadPlacement.link(location.path, into: outputDirectory, suggested: downloadTask.response?.suggestedFilename)
        }
        switch placed {
        case .success(let path):
            if hasCheckpoint { companions?.removeResume() }  // a download that never wrote one has none to remove
            state.withLock { $0.saved[id] = path }
            post(.saved(id: id, path: path))
        case .failure(let problem):
            post(.note(id: id, problem.message))
            downloadTask.keepingFailed = TransferError(.cannotWriteToFile, problem.message, failingURL: downloadTask.originalRequest.url)
        }
    }

    /// The file name a Content-Disposition header gives, cleaned; nil without one.
    private static func serverName(_ response: Response?) -> String? {
        guard let response, response.headers["Content-Disposition"] != nil else { return nil }
        return response.suggestedFilename.flatMap(SafeFileName.clean)
    }

    func urlSession(_ session: Session, task: SessionTask, didCompleteWithError error: TransferError?) {
        let now = StoreKeeper.wallClock()
        let cleanly = task.endedCleanly  // read before any lock of ours: it takes the task's
        // Another program took the partial file's name between the claim and the start: those files are its own, so
        // nothing of them is removed, and the row starts again under a new name (claimed before the lock: a claim
        // reads the disk and asks `holds`).
        var placedAgain = error?.code == .cannotCreateFile ? placeAgain(task) : nil
        let (id, starting, companions, decision, stopping, idle) = state.withLock { s -> (Int, [SessionTask], DownloadCompanions?, RetryPolicy.Decision?, Bool, Bool) in
            let id = s.row(of: task)
            s.handlers[id] = nil
            _ = s.release(id)
            // A converted data task makes no such call: a conversion still pending never happened, and its name is free.
            if let unused = s.converting.removeValue(forKey: id) { s.targets.remove(unused.target) }
            if error?.code == .cannotCreateFile, s.rows[id]?.companions != nil, !s.stopping {
                if let placedAgain {
                    s.rows[id]?.companions = placedAgain.companions
                    s.rows[id]?.createsPartial = placedAgain.isFree
                    s.rows[id]?.hasCheckpoint = placedAgain.resumeData != nil
                    s.targets.insert(placedAgain.companions.target)
                    s.waits += 1
                    s.waiting[id] = (s.waits, placedAgain.resumeData)  // started below, as a retry whose wait is over
                } else {
                    s.rows[id]?.companions = nil  // no other name: the row fails, and never removes that program's files
                }
            } else {
                placedAgain = nil  // not (or no longer) a download this app placed, or quitting: it ends as it is
            }
            let managed = s.rows[id]
            let quiet = s.stopping || s.refreshing.contains(id) || placedAgain != nil
            let decision = quiet ? nil : managed.flatMap { managed in
                retryPolicies.policy(for: managed.kind).flatMap { policy in
                    Self.failure(of: task, error).map { failure in
                        let tries = s.retries[id] ?? (0, now)
                        return policy.decide(after: failure, method: managed.request.method, retriesMade: tries.made,
                                             elapsed: now - tries.since, now: now)
                    }
                }
            }
            if case .retry = decision {
                s.retries[id] = ((s.retries[id]?.made ?? 0) + 1, s.retries[id]?.since ?? now)  // deciding until scheduled
            } else if placedAgain == nil {  // placed again: deciding until its next attempt is tracked (below)
                s.deciding.remove(id)
                if let url = managed?.request.url, s.downloadRows[url] == id { s.downloadRows[url] = nil }
            }
            let starting = s.queue.finished(id).compactMap { s.rows[$0]?.task }
            // A refresh's stopped task ends quietly and restarts later: nothing is idle in between.
            let idle = starting.isEmpty && s.queue.isIdle && s.deciding.isEmpty && s.waiting.isEmpty && s.refreshing.isEmpty
            return (id, starting, managed?.companions, decision, quiet, idle)
        }
        if case .retry(let delay, let attempt, let of, let reason) = decision {
            if let companions, let data = error?.resumeData { companions.saveResume(data) }
            // Posted before the wait starts, so that a wait of 0 cannot start the next attempt ahead of it.
            post(.retrying(id: id, attempt: attempt, of: of, at: DispatchTime.now().uptimeNanoseconds + UInt64(delay * 1e9),
                           reason: reason))
            scheduleRetry(id, after: delay, resumeData: error?.resumeData ?? companions?.loadResume(for: task.originalRequest.url.absoluteString))
        } else if let companions {
            if let data = error?.resumeData {
                companions.saveResume(data)
            } else if !stopping, !cleanly {
                // Nothing to continue: only the file's own companions may remain, and none is needed. Never on quit:
                // a download that never started this run still has an earlier run's bytes and checkpoint.
                companions.removeAll()
            }
        }
        if case .giveUp(let why, _)? = decision, why != .notRetried {
            post(.note(id: id, why.description))
        }
        let retrying: Bool
        if case .retry? = decision { retrying = true } else { retrying = false }
        if !stopping && !retrying { tellEnded(id, task, error) }
        for next in starting { next.resume() }  // outside the lock: resuming calls into the session
        if let placedAgain {
            post(.renamed(id: id, target: placedAgain.companions.target, at: DispatchTime.now().uptimeNanoseconds))
            startRetry(id, wait: nil)
            // Only now: a loop that saw the failed attempt's end, and not yet `renamed`, finds the row in hand until
            // its next attempt is tracked (between startRetry's two locks it is neither waiting nor deciding).
            state.withLock { _ = $0.deciding.remove(id) }
        }
        let letGo = state.withLock { s -> SessionTask? in
            // Not a row whose next attempt (a retry, a new name) already carries it.
            guard s.rows[id]?.task === task else { return nil }
            s.open.remove(id)  // see allTasksCompleted
            // Ended for good: the engine's task goes, with its response, metrics and buffers (see ManagedTask.task).
            guard !retrying && !s.refreshing.contains(id) else { return nil }
            defer {
                s.rows[id]?.task = nil
                s.rows[id]?.finishedCleanly = cleanly
            }
            return s.rows[id]?.task
        }
        withExtendedLifetime(letGo) {}  // freed here when this was the last reference: after the lock, not under it
        if idle && !retrying, let told = onIdle.withLock({ $0 }) { told() }
    }

    /// A new name for the download `task` made, unless the app is stopping or the row is being refreshed.
    private func placeAgain(_ task: SessionTask) -> DownloadCompanions.Claim? {
        guard let managed = state.withLock({ s -> ManagedTask? in
            let id = s.row(of: task)
            return s.stopping || s.refreshing.contains(id) ? nil : s.rows[id]
        }), managed.companions != nil, let claim = reclaim.withLock({ $0 }) else { return nil }
        return claim(managed)
    }

    /// The hooks hear how the row ended, and whether it was the last thing to run.
    private func tellEnded(_ id: Int, _ task: SessionTask, _ error: TransferError?) {
        let told = onEnded.withLock { $0 }
        let (file, empty) = state.withLock { s -> (String?, Bool) in
            let file = s.saved.removeValue(forKey: id)
            // A look at every row, so only when someone listens: 2,000 downloads made it 4 million checks.
            let empty = told != nil && s.waiting.isEmpty && s.deciding.isEmpty
                && s.rows.values.allSatisfy { row in row.task.map { $0.state == .completed || $0 === task } ?? true }
            return (file, empty)
        }
        guard let told else { return }
        let status = task.response?.statusCode
        let outcome: EndedTask.Outcome = error?.code == .cancelled ? .cancelled : error != nil || (status ?? 0) >= 400 ? .failed : .finished
        let problem = error?.message ?? status.flatMap { $0 >= 400 ? "the server answered \($0)" : nil }
        told(EndedTask(id: id, url: task.originalRequest.url.absoluteString, file: file, outcome: outcome, httpStatus: status,
                       bytes: task.countOfBytesReceived, error: problem), empty)
    }

    // MARK: Retries

    /// What failed, as the retry policy sees it; nil for a success or a cancellation.
    private static func failure(of task: SessionTask, _ error: TransferError?) -> RetryPolicy.Failure? {
        if let error, error.code == .cancelled { return nil }
        if let status = task.response?.statusCode, status >= 400 {
            return .status(status, retryAfter: task.response?.headers["Retry-After"])
        }
        return error.map { .transfer($0) }
    }

    private func scheduleRetry(_ id: Int, after delay: Double, resumeData: Data?) {
        let wait = state.withLock { s -> UInt64? in
            s.deciding.remove(id)
            guard !s.stopping else { return nil }
            s.waits += 1
            s.waiting[id] = (s.waits, resumeData)
            return s.waits
        }
        guard let wait else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [weak self] in self?.startRetry(id, wait: wait) }
    }

    /// The next attempt of a row whose wait is over (`wait` nil: the user resumed it): a new engine task takes
    /// the row's place and its turn in the queue.
    private func startRetry(_ id: Int, wait: UInt64?) {
        guard let (managed, resumeData) = state.withLock({ s -> (ManagedTask, Data?)? in
            guard !s.stopping, let waiting = s.waiting[id], wait == nil || waiting.wait == wait,
                  let managed = s.rows[id] else { return nil }
            s.waiting[id] = nil
            return (managed, waiting.resumeData)
        }), let make = remake.withLock({ $0 }), let next = make(managed, resumeData) else { return }
        if let limit = managed.rateLimit { next.maximumBytesPerSecond = limit }
        let host = managed.request.url.host
        let hostLimit = host.flatMap(self.hostLimit)  // before the lock, as in track
        let starts = state.withLock { s -> Bool? in
            guard !s.stopping, s.rows[id] != nil else { return nil }  // quit or forgotten while the task was made
            s.rows[id]?.task = next
            s.open.insert(id)
            s.rows[id]?.checkpoints.restart()
            s.rows[id]?.createsPartial = false  // this attempt makes it; a later one continues or empties it
            s.rowOfTask[next.taskIdentifier] = id
            if managed.companions != nil { s.downloadRows[managed.request.url] = id }
            return s.queue.add(id, host: host, hostLimit: hostLimit)
        }
        switch starts {
        case true?: next.resume()
        case false?: break
        case nil: next.cancel()
        }
    }

    // MARK: Refresh

    /// Marks a download row as taking a new URL; its managed task, or nil when it is no download of this app's.
    func beginRefresh(_ id: Int) -> ManagedTask? {
        state.withLock { s in
            guard let managed = s.rows[id], managed.companions != nil, !s.refreshing.contains(id) else { return nil }
            s.refreshing.insert(id)
            return managed
        }
    }

    func cancelRefresh(_ id: Int) { _ = state.withLock { $0.refreshing.remove(id) } }

    /// An earlier run's row (no task here) is being refreshed: counted as work in hand (a quit by
    /// `--exit-when-done` waits for it), and not refreshed twice at once. False when it is already, or when the app
    /// is stopping, or when a download of this app holds `target`.
    func beginEarlierRefresh(_ id: Int, target: String) -> Bool {
        state.withLock { s in
            guard s.rows[id] == nil, !s.refreshing.contains(id), !s.stopping, !s.targets.contains(target) else { return false }
            s.refreshing.insert(id)
            return true
        }
    }

    /// Whether the app has begun to stop (a quit, a signal): nothing new starts then.
    var isStopping: Bool { state.withLock { $0.stopping } }

    /// The row's next attempt with `request` (its new URL) from `resumeData`, started as a retry is.
    func restart(_ id: Int, request: Request, resumeData: Data?) {
        let known = state.withLock { s -> Bool in
            s.refreshing.remove(id)
            guard let managed = s.rows[id] else { return false }
            if s.downloadRows[managed.request.url] == id { s.downloadRows[managed.request.url] = nil }
            s.rows[id]?.request = request
            s.waits += 1
            s.waiting[id] = (s.waits, resumeData)
            return true
        }
        if known { startRetry(id, wait: nil) }
    }

    /// `r` on a row waiting to retry: now. False when it is not waiting.
    func retryNow(_ id: Int) -> Bool {
        guard state.withLock({ $0.waiting[id] != nil }) else { return false }
        startRetry(id, wait: nil)
        return true
    }

    /// `c` on a row waiting to retry: no more attempts; the row ends cancelled. False when it is not waiting.
    func cancelRetry(_ id: Int) -> Bool {
        guard state.withLock({ $0.waiting.removeValue(forKey: id) }) != nil else { return false }
        let companions = state.withLock { s -> DownloadCompanions? in
            if let url = s.rows[id]?.request.url, s.downloadRows[url] == id { s.downloadRows[url] = nil }
            return s.rows[id]?.companions
        }
        companions?.removeAll()
        let now = DispatchTime.now().uptimeNanoseconds
        post(.engine(TaskEventRecord(taskIdentifier: id, uptimeNanoseconds: now, event: .stateChanged(.completed))))
        post(.engine(TaskEventRecord(taskIdentifier: id, uptimeNanoseconds: now,
                                     event: .didCompleteWithError(TransferError(.cancelled, "cancelled while waiting to retry")))))
        return true
    }
}

/// Which tasks are tried again after a failure: downloads by default (as wget and aria2 do), data tasks only when
/// asked (`--retry`), since their bodies were shown, not kept.
public struct RetryPolicies: Sendable {
    public var downloads: RetryPolicy?
    public var data: RetryPolicy?

    public init(downloads: RetryPolicy? = RetryPolicy(maximumRetries: 5), data: RetryPolicy? = nil) {
        self.downloads = downloads
        self.data = data
    }

    func policy(for kind: TaskKind) -> RetryPolicy? { kind == .download ? downloads : data }
}

extension SessionTask {
    /// Completed with no error and a status below 400: nothing is left to fetch again.
    var endedCleanly: Bool { state == .completed && error == nil && (response?.statusCode ?? 0) < 400 }
}

/// What carries a row now (`TUIDelegate.carrier`).
enum RowCarrier {
    /// No such row.
    case none
    /// Its engine task.
    case live(SessionTask)
    /// It has ended for good, as a task of this kind; its engine task is gone.
    case ended(TaskKind)
}

/// One row's task as the app manages it: the engine task carrying it now, and what it takes to make it again.
struct ManagedTask: Sendable {
    let row: Int
    /// Nil once the row has ended for good (no retry follows, no refresh is under way): a finished engine task keeps
    /// its response, metrics, requests and locks (`get` keeping its 2,000 tasks took 6.7 MB more), and the model and
    /// the store already keep what they need of them. Let go, plain `-d` of 2,000 files took about 5,400 page faults
    /// instead of 6,000.
    var task: SessionTask?
    /// How the released task ended: with no error and a status below 400 (a refresh has nothing to do then).
    var finishedCleanly = false
    var request: Request
    var kind: TaskKind = .data
    /// For downloads the app placed itself (`-d`, or added as a download): the file and its companions.
    var companions: DownloadCompanions?
    /// When its resume state goes to disk (delegate queue only).
    var checkpoints = CheckpointClock(waitsAfterFirstBytes: true)
    /// A checkpoint of this download is on disk (written here, or left by an earlier run): remove it at the end.
    var hasCheckpoint = false
    /// Its own receive limit, kept for its next attempts.
    var rateLimit: Int64?
    /// Its next attempt makes the partial file, as a new file: the name was claimed free and nothing of it is there
    /// yet (a first attempt is made so by the add; a download placed again after its name was taken, by this).
    var createsPartial = false

    init(row: Int, task: SessionTask, request: Request, kind: TaskKind = .data, companions: DownloadCompanions? = nil,
         hasCheckpoint: Bool = false) {
        self.row = row
        self.task = task
        self.request = request
        self.kind = kind
        self.companions = companions
        self.hasCheckpoint = hasCheckpoint
    }
}
