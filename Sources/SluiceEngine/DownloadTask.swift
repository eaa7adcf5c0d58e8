// A task whose body goes to one file: progress, the finished file, resume data, and taking over a data
// task's transfer.
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

/// Bytes are written on the task's own serial writer queue, so a slow disk never blocks the transfer loop or
/// the delegate queue; the session's buffer limit bounds what waits for the disk.
public final class DownloadTask: SessionTask, @unchecked Sendable {
    private let writer: DispatchQueue
    private let resumeFrom: ResumeData?
    /// Opened on the loop thread before the first byte, then used on the writer queue only.
    private var file: DownloadFile?
    /// Set (releasing) once `file` and the offsets are in place: a checkpoint asked for a task not started yet (a
    /// retry's new task waiting its turn, which the delegate's sweep can reach) reads them only after this (acquiring),
    /// never while the loop thread writes them.
    private let fileOpened = Atomic<Bool>(false)
    private let splitSetting: Atomic<Int>
    private let minimumSegment = Atomic<Int64>(1 << 20)
    /// The split chosen at the response (loop thread), handed to the writer queue with the first request's end.
    private var segmentPlan: SegmentPlan?
    /// The split download's connections once they run (writer queue only).
    private var segments: SegmentedDownload?
    /// A resumed split download's missing ranges, when its partial file was found (loop thread).
    private var resumedSegments: [(Int64, Int64)]?
    /// Where the file starts in the body when resuming (loop thread until the response, then read-only).
    private var startOffset: Int64 = 0
    private var resumedAt: Int64?
    /// The server answered the resumed request with an error status: the partial file stays as it was, for a retry.
    private var refusedResume = false
    private let written = Atomic<Int64>(0)
    private let expectedTotal = Atomic<Int64>(Response.unknownLength)
    private let awaitingTakeOver: Atomic<Bool>
    private let resumeDataRequest = Locked(ResumeDataRequest())
    private var downloadTarget: SessionDownloadDelegate?  // delegate queue
    // Writer queue only.
    private var reported: Int64 = 0
    private var lastReport: UInt64 = 0
    private var writeFailure: TransferError?
    private var progressScheduled = false
    private static let progressInterval: UInt64 = 100_000_000
    /// Set by engine-internal consumers that hand the file to their caller (async `download(for:)`).
    var keepsFile = false

    /// Every writer queue runs on the global pool, which keeps about one thread per core: on its own, each serial
    /// queue could get a thread of its own, and 50 small downloads at once spawned dozens.
    private static let writers = DispatchQueue.global(qos: .utility)

    private struct ResumeDataRequest {
        var handler: (@Sendable (Data?) -> Void)?
        var closed = false
    }

    /// Where a fresh download writes, when its caller chose the name (nil: a hidden name in the directory).
    private let partialFile: String?
    /// The partial file is made when the transfer starts, exclusively: the caller found the name free.
    private let createsPartialExclusively: Bool

    init(identifier: Int, request: Request, session: Session, resumeFrom: ResumeData? = nil, partialFile: String? = nil,
         exclusive: Bool = false) {
        writer = DispatchQueue(label: "sluice.download.\(identifier)", target: Self.writers)
        self.resumeFrom = resumeFrom
        self.partialFile = partialFile ?? resumeFrom?.path
        createsPartialExclusively = exclusive && resumeFrom == nil
        conversionFile = nil
        missingHead = Atomic(0)
        awaitingTakeOver = Atomic(false)
        splitSetting = Atomic(max(1, resumeFrom?.connections ?? 1))
        super.init(identifier: identifier, request: request, session: session)
    }

    /// The file a converted download writes (its data task's `downloadPartialFile` when that could be made); nil
    /// for a download made as one.
    public let conversionFile: String?
    /// Body bytes a converted download's file lacks at its start: what the data task received, until the delegate
    /// gives them back (`prependReceivedData`). While any are missing, the file is no resumable prefix of the body.
    /// Below zero reads as none missing (more given back than the data task received).
    private let missingHead: Atomic<Int64>

    /// Takes over `dataTask`'s transfer after it delivered `received` bytes; the writer waits for `takeOver()`.
    init(identifier: Int, continuing dataTask: DataTask, file: DownloadFile, received: Int64) {
        writer = DispatchQueue(label: "sluice.download.\(identifier)", attributes: .initiallyInactive, target: Self.writers)
        resumeFrom = nil
        partialFile = nil
        conversionFile = file.path
        missingHead = Atomic(received)
        createsPartialExclusively = false
        awaitingTakeOver = Atomic(true)
        splitSetting = Atomic(1)
        self.file = file
        super.init(identifier: identifier, request: dataTask.originalRequest, session: dataTask.session,
                   lifecycle: TaskLifecycle(continuing: dataTask.state))
        setCurrentRequest(dataTask.currentRequest)
        inheritResponse(dataTask.response)
        fileOpened.store(true, ordering: .releasing)  // the data task's file, open already
        let expected = dataTask.countOfBytesExpectedToReceive
        expectedTotal.store(expected >= 0 ? max(0, expected - received) : Response.unknownLength, ordering: .relaxed)
    }

    // MARK: Public

    /// Bytes in the download's file so far (including a resumed file's first part).
    public var countOfBytesWritten: Int64 { written.load(ordering: .relaxed) }
    /// The file's final size when known, else -1.
    public var countOfBytesExpectedToWrite: Int64 { expectedTotal.load(ordering: .relaxed) }

    /// How many connections may fetch ranges of the file at once (set before `resume()`): when the first response
    /// says `Accept-Ranges: bytes` with a length, the rest of the body comes as that many ranges (If-Range with
    /// the first response's validator), each written at its offset. 1, the default, is one connection. A task
    /// made from a split download's resume data starts with the split it had.
    public var split: Int {
        get { splitSetting.load(ordering: .relaxed) }
        set { splitSetting.store(max(1, newValue), ordering: .relaxed) }
    }

    /// Other URLs of the same file (set before `resume()`): a split download spreads its ranges over its own URL
    /// and these, each request to the one with the fewest. A mirror is trusted only while its answers agree with
    /// the first response (a 206 of the same length and ETag, else Last-Modified); one that answers anything else
    /// (an error status, another file, no connection) is dropped, its ranges go back to the others, and the event
    /// stream gets `.mirrorDropped` with the reason. Used only when `split` is more than 1.
    public var mirrors: [URL] {
        get { mirrorList.withLock { $0 } }
        set { mirrorList.withLock { $0 = newValue } }
    }
    private let mirrorList = Locked<[URL]>([])

    /// While a split download runs: its ranges in file order, how far each has come, which have a connection now.
    /// Empty for a download on one connection. Cheap enough to read a few times a second from any thread.
    public var ranges: [DownloadSegment] { publishedSegments.withLock { $0 } }
    /// Written by the segments on the writer queue whenever their plan changes.
    let publishedSegments = Locked<[DownloadSegment]>([])

    /// No range of a split download is smaller than this (set before `resume()`); a smaller file is not split.
    public var minimumSegmentSize: Int64 {
        get { minimumSegment.load(ordering: .relaxed) }
        set { minimumSegment.store(max(1, newValue), ordering: .relaxed) }
    }

    public override func cancel() {
        super.cancel()  // while the segments run, the first request has already ended: they are cancelled here
        writer.async { [self] in segments?.cancel() }
    }

    public override func suspend() {
        super.suspend()
        writer.async { [self] in segments?.suspend() }
    }

    public override func resume() {
        super.resume()
        writer.async { [self] in if state == .running { segments?.resume() } }
    }

    /// Cancels and hands back resume data (nil when nothing can be resumed), on the delegate queue, before
    /// `didCompleteWithError`. The partial file is kept for `downloadTask(withResumeData:)`.
    public func cancel(byProducingResumeData completionHandler: @escaping @Sendable (Data?) -> Void) {
        let accepted = resumeDataRequest.withLock { r -> Bool in
            guard !r.closed else { return false }
            r.handler = completionHandler
            return true
        }
        guard accepted else {
            session.delegateQueue.async { completionHandler(nil) }
            return
        }
        cancel()
    }

    /// Only inside `didBecome downloadTask`: writes the bytes the data task already delivered at the start of the
    /// file, so that the file holds the whole body. Returns false when it is too late or the write failed.
    @discardableResult
    public func prependReceivedData(_ data: Data) -> Bool {
        guard awaitingTakeOver.load(ordering: .sequentiallyConsistent), let file, writeFailure == nil else { return false }
        do throws(TransferError) {
            try file.append(data)
        } catch {
            writeFailure = error
            session.loop.send(.fail(taskIdentifier, error))
            return false
        }
        written.store(file.size, ordering: .relaxed)
        missingHead.subtract(Int64(data.count), ordering: .relaxed)
        let expected = expectedTotal.load(ordering: .relaxed)
        if expected >= 0 { expectedTotal.store(expected + Int64(data.count), ordering: .relaxed) }
        return true
    }

    /// Resume data for what is on disk now, with the partial file's bytes synced first, handed to `handler` on
    /// the download's writer queue: keep it (written atomically) and a killed process resumes from there with
    /// `downloadTask(withResumeData:)`. Nil when the download cannot be resumed (not a GET, no 200 or 206 yet)
    /// or has ended. Cheap enough for once a second; each call costs one fdatasync.
    public func checkpoint(_ handler: @escaping @Sendable (Data?) -> Void) {
        writer.async { [self] in
            guard fileOpened.load(ordering: .acquiring), !resumeDataRequest.withLock({ $0.closed }), writeFailure == nil, let file,
                  originalRequest.method.uppercased() == "GET", let status = response?.statusCode,
                  status == 200 || status == 206, missingHead.load(ordering: .relaxed) <= 0, file.sync() else { return handler(nil) }
            handler(makeResumeData(file))
        }
    }

    // MARK: Engine hooks

    override func targetResolved() {
        downloadTarget = target as? SessionDownloadDelegate ?? session.delegate as? SessionDownloadDelegate
    }

    override func prepareToStart() throws(TransferError) {
        guard file == nil else { return }
        let pending = resumeFrom?.pendingRanges
        if let resume = resumeFrom, resume.bytesOnDisk > 0 || pending != nil,
           let partial = DownloadFile.reopen(resume.path, at: resume.bytesOnDisk, truncating: pending == nil) {
            file = partial
            startOffset = resume.bytesOnDisk
            resumedSegments = pending
            var request = currentRequest
            request.headers.set("Range", "bytes=\(resume.bytesOnDisk)-")
            if let validator = resume.ifRange { request.headers.set("If-Range", validator) }
            setCurrentRequest(request)
        } else {
            do throws(TransferError) {
                // Resume data whose file is gone, or too short, starts over in the same place.
                if let partialFile {
                    file = try DownloadFile.create(at: partialFile, exclusive: createsPartialExclusively)
                } else {
                    file = try DownloadFile.create(in: session.configuration.downloadDirectory)
                }
            } catch {
                throw TransferError(error.code, error.message, failingURL: originalRequest.url)
            }
        }
        let done = resumedSegments.flatMap { ranges in resumeFrom?.expectedLength.map { $0 - ranges.reduce(0) { $0 + $1.1 - $1.0 } } }
        written.store(done ?? startOffset, ordering: .relaxed)
        fileOpened.store(true, ordering: .releasing)
    }

    override func admit(_ response: Response) -> TransferError? {
        if let problem = admitWhole(response) { return problem }
        // A split: this request ends here (its body unread) and the segments fetch the rest once it has.
        segmentPlan = SegmentedDownload.plan(
            for: response, method: originalRequest.method, connections: split, minimumPiece: minimumSegmentSize,
            pending: resumedSegments, total: resumeFrom?.expectedLength, mirrors: mirrors.count)
        if let plan = segmentPlan {
            if resumedSegments != nil, response.statusCode == 206 { resumedAt = plan.bytesDone }
            session.loop.send(.fail(taskIdentifier, TransferError(.cancelled, SegmentedDownload.handOffMessage)))
        }
        return nil
    }

    private func admitWhole(_ response: Response) -> TransferError? {
        let length = response.expectedContentLength
        guard startOffset > 0 || resumedSegments != nil else {
            if !awaitingTakeOver.load(ordering: .relaxed) { expectedTotal.store(length, ordering: .relaxed) }
            return nil
        }
        if let status = response.statusCode, status >= 400, status != 416 {
            // An error page is not the rest of the body, and a busy server (503, 429) is no reason to lose what is
            // on disk: the task fails with the response kept and the partial file resumable as before. (416 says
            // the partial file itself is wrong: that one still starts over.)
            refusedResume = true
            inheritResponse(response)
            return TransferError(.badServerResponse, "the server answered \(status) to the request to resume at byte \(startOffset)",
                                 failingURL: response.url)
        }
        // The whole file as a 206 (a server that sends all of it whatever range is asked, and says 206): the body
        // starts again at 0, as for a 200. Refused as a mismatch, it failed every resume for good (found by a tester).
        let range = response.statusCode == 206 ? response.headers["Content-Range"].flatMap(ContentRange.parse) : nil
        let wholeAs206 = resumedSegments == nil && range.map { sent in sent.first == 0 && sent.total == sent.last + 1 } == true
        if response.statusCode == 206 && !wholeAs206 {
            guard let range, range.first == startOffset else {
                return TransferError(.badServerResponse, "asked to resume at byte \(startOffset), the server sent "
                                     + "Content-Range \(response.headers["Content-Range"] ?? "(none)")",
                                     failingURL: response.url)
            }
            if let before = resumeFrom?.expectedLength, let total = range.total, before != total {
                return TransferError(.badServerResponse, "the file changed on the server (\(before) bytes before, "
                                     + "\(total) now); delete the partial file to start over", failingURL: response.url)
            }
            resumedAt = startOffset
            expectedTotal.store(range.total ?? (length >= 0 ? startOffset + length : Response.unknownLength), ordering: .relaxed)
        } else {
            // The server ignored the range, or the validator no longer matches: the body starts again at 0.
            resumedAt = 0
            startOffset = 0
            expectedTotal.store(length, ordering: .relaxed)
            writer.async { [self] in
                do throws(TransferError) { try file?.truncate() } catch { fail(error) }
                written.store(0, ordering: .relaxed)
            }
        }
        return nil
    }

    override func responseAnnounced(_ response: Response) {
        guard let offset = resumedAt else { return }
        let expected = expectedTotal.load(ordering: .relaxed)
        emit(.didResumeAtOffset(offset: offset, expected: expected))
        downloadTarget?.urlSession(session, downloadTask: self, didResumeAtOffset: offset, expectedTotalBytes: expected)
    }

    override func route(_ data: Data) {
        guard segmentPlan == nil else { return releaseCredit(data.count) }  // the segments fetch these bytes again
        writer.async { [self] in
            // A converted download's writer starts only when takeOver() activates it, after the delegate's
            // prependReceivedData. This acquire pairs with takeOver's store: the order activate() already gives,
            // stated so that ThreadSanitizer (which does not model a queue's activation) sees it too.
            _ = awaitingTakeOver.load(ordering: .acquiring)
            defer { releaseCredit(data.count) }
            guard writeFailure == nil, let file else { return }
            do throws(TransferError) {
                try file.append(data)
            } catch {
                return fail(error)
            }
            written.store(file.size, ordering: .relaxed)
            reportProgress(final: false)
        }
    }

    /// Delegate queue, after the data task's `didBecome downloadTask` returned: writing may start.
    func takeOver() {
        awaitingTakeOver.store(false, ordering: .sequentiallyConsistent)
        emit(.stateChanged(state == .suspended ? .suspended : .running))
        writer.activate()
    }

    override func completeDelivery(_ error: TransferError?) {
        writer.async { [self] in
            if let plan = segmentPlan, error?.message == SegmentedDownload.handOffMessage, let file, let response {
                guard state != .canceling else { return settle(.cancelled(originalRequest.url)) }
                segments = SegmentedDownload(download: self, file: file, plan: plan, response: response, writer: writer)
                segments?.start()
                return
            }
            settle(error)
        }
    }

    // MARK: From the segments (writer queue)

    func segmentWrote(_ count: Int64) {
        written.add(count, ordering: .relaxed)
        reportProgress(final: false)
    }

    /// A segment's request got the whole body instead of its range: the file starts again from 0.
    func segmentsRestarted(total: Int64) {
        written.store(0, ordering: .relaxed)
        reported = 0
        expectedTotal.store(total, ordering: .relaxed)
        session.delegateQueue.async { [self] in
            emit(.didResumeAtOffset(offset: 0, expected: total))
            downloadTarget?.urlSession(session, downloadTask: self, didResumeAtOffset: 0, expectedTotalBytes: total)
        }
    }

    /// A mirror answered something other than its range of this file: the timeline says which and why.
    func mirrorDropped(_ url: URL, reason: String) {
        session.delegateQueue.async { [self] in emit(.mirrorDropped(url, reason: reason)) }
    }

    func segmentsEnded(_ error: TransferError?) {
        settle(error)
    }

    /// The end: the file handed over, or kept with resume data, or removed; then the last delegate calls.
    private func settle(_ error: TransferError?) {
        let handler = resumeDataRequest.withLock { r -> (@Sendable (Data?) -> Void)? in
            r.closed = true
            defer { r.handler = nil }
            return r.handler
        }
        guard let file else {
            session.delegateQueue.async { [self] in
                makeLastCalls {
                    handler?(nil)
                    self.reportCompletion(error)
                }
            }
            return
        }
        // The file stays open, and so locked, until the delegate has moved it or written the checkpoint that
        // names it: another download must not take the name in between (PartialFileLock). No byte is written
        // after this point, so the delegate queue closing it is a hand-off, not a second writer.
        guard var error = error ?? writeFailure else {
            segments = nil
            reportProgress(final: true)
            session.delegateQueue.async { [self] in
                makeLastCalls {
                    handler?(nil)  // it finished before the cancel took effect: nothing to resume
                    self.finishDownload(at: file.path)
                    self.reportCompletion(self.keepingFailed)
                    file.close()
                }
            }
            return
        }
        let resume = keepsPartial(error, asked: handler != nil) && missingHead.load(ordering: .relaxed) <= 0 ? makeResumeData(file) : nil
        segments = nil
        if resume == nil { file.remove() }
        error.resumeData = resume
        let final = error
        session.delegateQueue.async { [self] in
            makeLastCalls {
                handler?(resume)
                self.reportCompletion(final)
                file.close()
            }
        }
    }

    override func dropTarget() {
        super.dropTarget()
        downloadTarget = nil
    }

    // MARK: Writer queue

    private func fail(_ error: TransferError) {
        guard writeFailure == nil else { return }
        writeFailure = error
        session.loop.send(.fail(taskIdentifier, error))
    }

    /// At most about ten progress calls a second. Bytes held back by that limit are reported a little later even
    /// when no more arrive (a stalled server), and the last total always comes before the file is handed over.
    private func reportProgress(final: Bool) {
        let total = written.load(ordering: .relaxed)
        let now = uptimeNow()
        guard total != reported else { return }
        if !final && (now &- lastReport < Self.progressInterval || isGateClosed) {
            if !progressScheduled {
                progressScheduled = true
                writer.asyncAfter(deadline: .now() + .nanoseconds(Int(Self.progressInterval))) { [self] in
                    progressScheduled = false
                    reportProgress(final: false)
                }
            }
            return
        }
        let bytes = total - reported
        reported = total
        lastReport = now
        let expected = expectedTotal.load(ordering: .relaxed)
        session.delegateQueue.async { [self] in
            emit(.didWriteData(bytes: bytes, total: total, expected: expected))
            downloadTarget?.urlSession(session, downloadTask: self, didWriteData: bytes, totalBytesWritten: total,
                                       totalBytesExpectedToWrite: expected)
        }
    }

    /// A partial file is worth keeping when the caller asked for resume data or the failure is one a later
    /// attempt can get past, and the server sent the body itself (not an error page).
    private func keepsPartial(_ error: TransferError, asked: Bool) -> Bool {
        if refusedResume, let file, file.size > 0 { return true }
        // A resumed download that failed before any answer (refused, timed out, cancelled while connecting) still
        // has the bytes it started with: they are not this attempt's to throw away.
        if resumeFrom != nil, response == nil, let file, file.size > 0, originalRequest.method.uppercased() == "GET" { return true }
        guard let file, file.size > 0, originalRequest.method.uppercased() == "GET",
              let status = response?.statusCode, status == 200 || status == 206 else { return false }
        if asked { return true }
        switch error.code {
        case .networkConnectionLost, .timedOut, .cannotWriteToFile, .cannotConnectToHost: return true
        default: return false
        }
    }

    private func makeResumeData(_ file: DownloadFile) -> Data {
        let expected = expectedTotal.load(ordering: .relaxed)
        let validators = refusedResume ? (resumeFrom?.etag, resumeFrom?.lastModified)  // the error page's are not the file's
            : (response?.headers["ETag"], response?.headers["Last-Modified"])
        if let segments {  // the ranges still missing; what lies before the first of them is all on disk
            let plan = segments.plan
            let source = segments.replacement ?? response
            let (etag, lastModified) = refusedResume ? validators : (source?.headers["ETag"], source?.headers["Last-Modified"])
            return ResumeData(url: originalRequest.url.absoluteString, path: file.path, bytesOnDisk: plan.contiguousPrefix,
                              etag: etag, lastModified: lastModified,
                              expectedLength: plan.total, pending: plan.pendingRanges.map { [$0.0, $0.1] },
                              connections: split, adoptedBytes: resumeFrom?.adoptedBytes).encoded()
        }
        return ResumeData(url: originalRequest.url.absoluteString, path: file.path, bytesOnDisk: file.size,
                          etag: validators.0, lastModified: validators.1,
                          // An error page's length is not the file's either: the size the bytes belong to stays.
                          expectedLength: refusedResume ? resumeFrom?.expectedLength : expected >= 0 ? expected : nil,
                          adoptedBytes: resumeFrom?.adoptedBytes).encoded()
    }

    // MARK: Delegate queue

    /// Set by the delegate inside `didFinishDownloadingTo` when it could not keep the file (its directory gone, a
    /// full disk): the task then completes with this error instead of none. A Sluice extension: URLSession's task
    /// succeeds whatever its delegate did with the file, and a manager reported a download it lost as finished.
    public var keepingFailed: TransferError? {  // delegate queue only
        get { assertOnDelegateQueue(); return keepFailure }
        set { assertOnDelegateQueue(); keepFailure = newValue }
    }
    private var keepFailure: TransferError?  // delegate queue only

    private func finishDownload(at path: String) {
        // isDirectory given: without it, URL stats the path to find out (a syscall per download; perf showed it).
        let location = URL(fileURLWithPath: path, isDirectory: false)
        emit(.didFinishDownloadingTo(location))
        downloadTarget?.urlSession(session, downloadTask: self, didFinishDownloadingTo: location)
        if !keepsFile { unlink(path) }  // already gone when the delegate moved it
    }
}
