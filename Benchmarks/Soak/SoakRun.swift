// One run of the soak: every plan's task in one Session, at most `concurrency` chains at once, each delegate call
// booked per task; the delegate takes each scenario's action (suspend, cancel, convert) at its moment.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import SluiceEngine
import Synchronization

final class SoakRun: SessionDataDelegate, SessionDownloadDelegate, @unchecked Sendable {
    struct Result {
        var chains = 0
        var tasks = 0
        var resumed = 0
        var converted = 0
        var conversionsAfterTheEnd = 0
        var completedTwice = 0
        var neverCompleted = 0
        var completionsOfUnknownTasks = 0
        var lateCalls = 0
        /// Body bytes delivered to data tasks plus the sizes of finished download files.
        var bytes: Int64 = 0
        var problems: [(plan: Int, text: String)] = []
        var seconds = 0.0
        var invalidated = false
        var hung: String?
    }

    private let plans: [Plan]
    private let base: String
    private let refused: URL
    private let ledger = Mutex(Ledger())
    private let chainsRunning = DispatchGroup()
    private let slots: DispatchSemaphore
    private let concurrency: Int
    private let invalidated = DispatchSemaphore(value: 0)
    private let stallLimit: Double

    init(plans: [Plan], base: String, refused: URL, concurrency: Int, stallLimit: Double) {
        self.plans = plans
        self.base = base
        self.refused = refused
        self.concurrency = concurrency
        self.stallLimit = stallLimit
        slots = DispatchSemaphore(value: concurrency)
    }

    /// Runs every plan, invalidates the session and lets it go; the session exists only inside this call.
    func run(downloadDirectory: String) -> Result {
        var configuration = SessionConfiguration.default
        configuration.downloadDirectory = downloadDirectory
        configuration.httpMaximumConnectionsPerHost = concurrency
        configuration.timeoutIntervalForRequest = 30
        let started = DispatchTime.now().uptimeNanoseconds
        var result = Result()
        do {  // the session's scope: after it, nothing here holds the session
            let session = Session(configuration: configuration, delegate: self)
            for plan in plans {
                guard waitWatching({ slots.wait(timeout: $0) }) else { break }
                start(plan, in: session)
            }
            if hangReport == nil { _ = waitWatching { chainsRunning.wait(timeout: $0) } }
            result.hung = hangReport
            if result.hung == nil {
                session.finishTasksAndInvalidate()
                result.invalidated = invalidated.wait(timeout: .now() + 30) == .success
            }
        }
        result.seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        ledger.withLock { l in
            result.chains = l.chainsEnded
            result.tasks = l.records.count
            result.resumed = l.records.values.filter { $0.role == .resumed }.count
            result.converted = l.records.values.filter { if case .converted = $0.role { true } else { false } }.count
            result.conversionsAfterTheEnd = l.conversionsAfterTheEnd
            result.completedTwice = l.records.values.filter { $0.completions > $0.expectedCompletions }.count
            result.neverCompleted = l.records.values.filter { $0.completions < $0.expectedCompletions }.count
            result.completionsOfUnknownTasks = l.completionsOfUnknownTasks
            result.lateCalls = l.records.values.reduce(0) { $0 + $1.lateCalls }
            result.bytes = l.records.values.reduce(0) { $0 + $1.bytes + ($1.fileSize ?? 0) }
            result.problems = l.problems
            l.running.removeAll()
        }
        return result
    }

    // MARK: Starting

    private func start(_ plan: Plan, in session: Session) {
        chainsRunning.enter()
        let url = plan.scenario == .refused ? refused : URL(string: base + plan.path)
        guard let url else {
            return endChain(plan.index, problems: ["cannot make a URL of \(plan.path)"])
        }
        let task: SessionTask
        if plan.scenario.isDownload {
            task = session.downloadTask(with: url)
        } else if plan.scenario == .timeout {
            task = session.dataTask(with: Request(url: url, timeoutInterval: 1))
        } else {
            task = session.dataTask(with: url)
        }
        ledger.withLock { $0.register(task, plan: plan.index, role: .first) }
        task.resume()
        switch plan.scenario {
        case .cancelAtStart:
            task.cancel()
        case .suspendBeforeResponse:
            task.suspend()
            update(task, delegateCall: false) { $0.suspended = true }
            resume(task, after: plan.pause)
        default:
            break
        }
    }

    /// Resumes from another thread a few milliseconds later, as a UI or a caller's own queue would.
    private func resume(_ task: SessionTask, after milliseconds: Int) {
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(milliseconds)) { [self] in
            update(task, delegateCall: false) { $0.suspended = false }
            task.resume()
        }
    }

    /// Changes a task's record; `delegateCall` counts a call that came after the task's completion.
    private func update(_ task: SessionTask, delegateCall: Bool = true, _ change: (inout TaskRecord) -> Void) {
        ledger.withLock { l in
            guard var r = l.records[task.taskIdentifier] else { return }
            if delegateCall && r.completions > 0 { r.lateCalls += 1 }
            change(&r)
            l.records[task.taskIdentifier] = r
        }
    }

    private func plan(of task: SessionTask) -> Plan? {
        ledger.withLock { $0.records[task.taskIdentifier]?.plan }.map { plans[$0] }
    }

    // MARK: Delegate calls

    func urlSession(_ session: Session, dataTask: DataTask, didReceive response: Response,
                    completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) {
        update(dataTask) { r in
            r.responses += 1
            r.status = response.statusCode
        }
        switch plan(of: dataTask)?.scenario {
        case .cancelAtResponse?: completionHandler(.cancel)
        case .becomeDownload?: completionHandler(.becomeDownload)
        default: completionHandler(.allow)
        }
    }

    func urlSession(_ session: Session, dataTask: DataTask, didReceive data: Data) {
        guard let plan = plan(of: dataTask) else { return }
        let checksPattern = ![.notFound, .multipart].contains(plan.scenario)
        var act = false
        update(dataTask) { r in
            if r.suspended { r.deliveredWhileSuspended += 1 }
            if checksPattern && r.patternMatches { r.patternMatches = PatternCheck.matches(data, at: r.bytes) }
            r.bytes += Int64(data.count)
            if plan.scenario == .convert { r.kept.append(data) }
            if !r.acted && [.suspendResume, .cancelMidBody, .convert].contains(plan.scenario) {
                r.acted = true
                act = true
            }
        }
        guard act else { return }
        switch plan.scenario {
        case .suspendResume:
            dataTask.suspend()
            update(dataTask, delegateCall: false) { $0.suspended = true }  // on the delegate queue: nothing comes in between
            resume(dataTask, after: plan.pause)
        case .cancelMidBody:
            dataTask.cancel()
        case .convert:
            dataTask.convertToDownload()
        default:
            break
        }
    }

    func urlSession(_ session: Session, dataTask: DataTask, didBecome downloadTask: DownloadTask) {
        let kept = ledger.withLock { l -> Data in
            guard var r = l.records[dataTask.taskIdentifier] else { return Data() }
            if r.completions > 0 { r.lateCalls += 1 }
            r.became = downloadTask.taskIdentifier
            let kept = r.kept
            r.kept = Data()
            l.records[dataTask.taskIdentifier] = r
            l.running[dataTask.taskIdentifier] = nil
            l.register(downloadTask, plan: r.plan, role: .converted(from: dataTask.taskIdentifier))
            return kept
        }
        let prepended = kept.isEmpty || downloadTask.prependReceivedData(kept)
        update(downloadTask) { $0.prepended = prepended }
    }

    func urlSession(_ session: Session, downloadTask: DownloadTask, didWriteData bytesWritten: Int64,
                    totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {
        guard let plan = plan(of: downloadTask), totalBytesWritten > 0,
              [.cancelDownloadResumed, .cancelDownloadPlain].contains(plan.scenario) else { return }
        var act = false
        update(downloadTask) { r in
            guard r.role == .first, !r.acted else { return }
            r.acted = true
            act = true
        }
        guard act else { return }
        if plan.scenario == .cancelDownloadPlain {
            downloadTask.cancel()
        } else {
            downloadTask.cancel(byProducingResumeData: { [self] data in update(downloadTask) { $0.resumeData = data } })
        }
    }

    func urlSession(_ session: Session, downloadTask: DownloadTask, didResumeAtOffset fileOffset: Int64,
                    expectedTotalBytes: Int64) {
        update(downloadTask) { $0.resumedAt = fileOffset }
    }

    func urlSession(_ session: Session, downloadTask: DownloadTask, didFinishDownloadingTo location: URL) {
        let file = PatternCheck.file(location.path)
        update(downloadTask) { r in
            r.finishedDownloads += 1
            r.fileSize = file.size
            r.fileMatches = file.matches
        }
    }

    func urlSession(_ session: Session, task: SessionTask, didCompleteWithError error: TransferError?) {
        enum Next { case nothing, end(Int, [String]), resume(Int, Data) }
        let next = ledger.withLock { l -> Next in
            guard var r = l.records[task.taskIdentifier] else {
                l.completionsOfUnknownTasks += 1
                return .nothing
            }
            r.completions += 1
            if r.suspended { r.completedWhileSuspended = true }
            guard r.completions == 1 else {
                l.records[task.taskIdentifier] = r
                return .nothing  // counted as a second completion; the chain already ended
            }
            r.error = error
            if r.resumeData == nil { r.resumeData = error?.resumeData }
            l.records[task.taskIdentifier] = r
            l.running[task.taskIdentifier] = nil
            let plan = plans[r.plan]
            if r.role == .first, let data = r.resumeData,
               [.dropDownloadResumed, .cancelDownloadResumed].contains(plan.scenario) {
                return .resume(r.plan, data)
            }
            let chain = l.chain(r.plan)
            if plan.scenario == .convert, chain.count == 1, r.became == nil { l.conversionsAfterTheEnd += 1 }
            return .end(r.plan, Expectation.problems(plan, chain))
        }
        switch next {
        case .nothing:
            break
        case .end(let plan, let problems):
            discardUnusedResumeData(of: task)
            endChain(plan, problems: problems)
        case .resume(let plan, let data):
            resumeChain(plan, from: data, in: session)
        }
    }

    func urlSession(_ session: Session, didBecomeInvalidWithError error: TransferError?) {
        invalidated.signal()
    }

    // MARK: Chains

    private func resumeChain(_ plan: Int, from data: Data, in session: Session) {
        do {
            let task = try session.downloadTask(withResumeData: data)
            ledger.withLock { $0.register(task, plan: plan, role: .resumed) }
            task.resume()
        } catch {
            endChain(plan, problems: ["downloadTask(withResumeData:) refused its own resume data: \(error)"])
        }
    }

    /// A caller that does not resume deletes the partial file its resume data names, as the engine documents.
    private func discardUnusedResumeData(of task: SessionTask) {
        guard let data = ledger.withLock({ $0.records[task.taskIdentifier]?.resumeData }),
              let resume = ResumeData.decode(data) else { return }
        unlink(resume.path)
    }

    private func endChain(_ plan: Int, problems: [String]) {
        ledger.withLock { l in
            l.chainsEnded += 1
            l.problems += problems.map { (plan, "\(plans[plan].scenario.rawValue) \(plans[plan].path): \($0)") }
        }
        chainsRunning.leave()
        slots.signal()
    }

    // MARK: Watching for a hang

    private let lastProgress = Mutex<(chains: Int, at: UInt64)>((0, 0))
    private let hang = Mutex<String?>(nil)
    private var hangReport: String? { hang.withLock { $0 } }

    /// Waits in one-second steps; false (and a report of what is still running) once no chain has ended for
    /// `stallLimit` seconds.
    private func waitWatching(_ wait: (DispatchTime) -> DispatchTimeoutResult) -> Bool {
        while wait(.now() + 1) == .timedOut {
            let now = DispatchTime.now().uptimeNanoseconds
            let ended = ledger.withLock { $0.chainsEnded }
            let stalled = lastProgress.withLock { p -> Bool in
                if p.at == 0 || p.chains != ended { p = (ended, now); return false }
                return Double(now - p.at) / 1e9 > stallLimit
            }
            if stalled {
                hang.withLock { $0 = describeRunning() }
                return false
            }
        }
        return true
    }

    private func describeRunning() -> String {
        ledger.withLock { l in
            let lines = l.running.sorted { $0.key < $1.key }.prefix(20).map { id, task -> String in
                let r = l.records[id]
                let plan = r.map { plans[$0.plan] }
                return "task \(id) \(plan?.scenario.rawValue ?? "?") \(plan?.path ?? "") state \(task.state.rawValue) "
                    + "bytes \(r?.bytes ?? 0) responses \(r?.responses ?? 0) completions \(r?.completions ?? 0)"
            }
            return "\(l.running.count) tasks still running after \(Int(stallLimit)) s without progress:\n  "
                + lines.joined(separator: "\n  ")
        }
    }
}
