// A split download's connections: one hidden data task per segment in a private session, each range written
// at its offset into the download's one partial file, driven by `SegmentPlan`.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch

/// Lives on the download's writer queue, which is also the private session's delegate queue: every response,
/// chunk and end of a segment arrives there, in order with the download's own writes and checkpoints, so
/// nothing here needs a lock. The private session has no event monitor and no delegate of the caller's: to
/// them the download stays one task, with one response and one end.
final class SegmentedDownload: @unchecked Sendable {
    /// The message of the error that ends the first request once the segments take over its body.
    static let handOffMessage = "the body is left to the split download's segments"

    private let download: DownloadTask
    private let file: DownloadFile
    private(set) var plan: SegmentPlan {
        didSet { download.publishedSegments.withLock { $0 = plan.publicSegments } }  // read by UIs from any thread
    }
    private let session: Session
    private let request: Request
    private let validator: String?
    /// The request for each source: the download's own URL first, then its mirrors.
    private let sources: [Request]
    /// What a mirror's answer must agree with: the first response's length and validator.
    private let check: MirrorCheck
    private var requests: [Int: DataTask] = [:]  // segment id -> its request
    /// Segments whose current request was answered with their range (a mirror failing before that is dropped).
    private var answered: Set<Int> = []
    private var suspended = false
    private var isOver = false
    private var lastFailure: TransferError?
    /// The response that answered with a whole new body, whose validators resume data must keep from now on.
    private(set) var replacement: Response?

    /// Whether this response allows a split, and the plan if so. `pending`: a resumed split download's ranges,
    /// honoured when the server answered their Range with 206.
    /// `mirrors`: how many other URLs may serve ranges (none are used when the response has no validator).
    static func plan(for response: Response, method: String, connections: Int, minimumPiece: Int64,
                     pending: [(Int64, Int64)]?, total: Int64?, mirrors: Int = 0) -> SegmentPlan? {
        guard method.uppercased() == "GET", let status = response.statusCode else { return nil }
        let sources = MirrorCheck.validator(of: response) == nil ? 1 : 1 + mirrors
        if status == 206, let pending, let total {
            return SegmentPlan(total: total, connections: connections, minimumPiece: minimumPiece, pending: pending,
                               sources: sources)
        }
        let length = response.expectedContentLength
        guard status == 200, connections > 1, length >= 2 * minimumPiece,
              response.headers["Accept-Ranges"]?.lowercased().split(separator: ",")
                .contains(where: { String($0).trimmedSpaces() == "bytes" }) == true else { return nil }
        // A coded body's ranges are ranges of the coding, which libcurl decodes as one stream.
        if let coding = response.headers["Content-Encoding"], coding.lowercased() != "identity" { return nil }
        return SegmentPlan(total: length, connections: connections, minimumPiece: minimumPiece, pending: [(0, length)],
                           sources: sources)
    }

    init(download: DownloadTask, file: DownloadFile, plan: SegmentPlan, response: Response, writer: DispatchQueue) {
        self.download = download
        self.file = file
        self.plan = plan
        var configuration = download.session.configuration
        // One connection per segment is the point: HTTP/2 would carry them all as streams of one connection.
        configuration.multiplexingEnabled = false
        // The per-host limit (6 by default) would queue the seventh and eighth ranges behind the others.
        configuration.httpMaximumConnectionsPerHost = max(configuration.httpMaximumConnectionsPerHost, plan.connections)
        configuration.maximumConcurrentTasks = 0  // the caller's cap counts this download once, not its ranges
        session = Session(configuration: configuration, delegate: nil, delegateQueue: writer)
        var request = download.originalRequest
        request.url = response.url
        request.headers.remove("Range")
        request.headers.remove("If-Range")
        self.request = request
        let etag = response.headers["ETag"]
        validator = etag.flatMap { $0.hasPrefix("W/") ? nil : $0 } ?? response.headers["Last-Modified"]
        check = MirrorCheck(total: plan.total, validator: MirrorCheck.validator(of: response))
        sources = [request] + download.mirrors.map { Self.request(request, for: $0) }
    }

    /// A mirror gets the download's request with its own URL; credentials and cookies the caller set for the
    /// download's server stay with that server (the session's cookie storage adds the mirror's own).
    static func request(_ base: Request, for mirror: URL) -> Request {
        var request = base
        request.url = mirror
        let sameOrigin = mirror.scheme?.lowercased() == base.url.scheme?.lowercased()
            && mirror.host?.lowercased() == base.url.host?.lowercased() && mirror.port == base.url.port
        if !sameOrigin {
            request.headers.remove("Authorization")
            request.headers.remove("Cookie")
        }
        return request
    }

    // MARK: Driven by the download (writer queue)

    func start() {
        if check.validator == nil {
            for mirror in sources.dropFirst() { download.mirrorDropped(mirror.url, reason: MirrorCheck.noValidator) }
        }
        perform(plan.start())
    }

    func suspend() {
        suspended = true
        for task in requests.values { task.suspend() }
    }

    func resume() {
        suspended = false
        for task in requests.values { task.resume() }
    }

    func cancel() { finish(.cancelled(download.originalRequest.url)) }

    // MARK: From the segments' requests (writer queue)

    fileprivate func responseArrived(_ id: Int, _ task: DataTask, _ response: Response) -> ResponseDisposition {
        guard !isOver, requests[id] === task, let segment = plan.segment(id) else { return .cancel }
        if segment.source > 0 {
            if let problem = check.problem(with: response, first: segment.next) {
                requests[id] = nil
                perform(plan.sourceFailed(id, reason: problem))
                return .cancel
            }
            answered.insert(id)
            return .allow
        }
        switch response.statusCode {
        case 206:
            guard let range = response.headers["Content-Range"].flatMap(ContentRange.parse), range.first == segment.next,
                  range.total == plan.total else {
                lastFailure = TransferError(.badServerResponse, "asked for bytes from \(segment.next) of \(plan.total), the "
                                            + "server sent Content-Range \(response.headers["Content-Range"] ?? "(none)")",
                                            failingURL: response.url)
                return .cancel
            }
            return .allow
        case 200:
            // The range was ignored, or If-Range found a changed file: this whole body is the download now.
            let total = response.expectedContentLength
            guard total >= 0 else {
                finish(TransferError(.badServerResponse, "the file changed on the server and its new length is unknown; "
                                     + "run the command again", failingURL: response.url))
                return .cancel
            }
            let (restarted, actions) = plan.wholeBodyArrived(id, newTotal: total)
            plan = restarted
            replacement = response
            do throws(TransferError) { try file.truncate() } catch {
                finish(error)
                return .cancel
            }
            download.segmentsRestarted(total: total)
            perform(actions)
            return .allow
        default:
            lastFailure = TransferError(.badServerResponse, "a range request got status \(response.statusCode ?? 0)",
                                        failingURL: response.url)
            return .cancel
        }
    }

    fileprivate func received(_ id: Int, _ task: DataTask, _ data: Data) {
        guard !isOver, requests[id] === task, let offset = plan.segment(id)?.next else { return }
        let (keep, actions) = plan.received(id, count: Int64(data.count))
        if keep > 0 {
            let failure = data.withUnsafeBytes { raw -> TransferError? in
                do throws(TransferError) {
                    try file.place(UnsafeRawBufferPointer(rebasing: raw.prefix(Int(keep))), at: offset)
                } catch { return error }
                return nil
            }
            if let failure { return finish(failure) }
            download.segmentWrote(keep)
        }
        perform(actions)
    }

    fileprivate func ended(_ id: Int, _ task: DataTask, _ error: TransferError?) {
        guard !isOver, requests[id] === task else { return }
        requests[id] = nil
        guard let segment = plan.segment(id), segment.state == .active else { return }  // it has all its bytes
        if segment.source > 0, !answered.contains(id) {  // refused, unreachable, timed out: nothing came
            return perform(plan.sourceFailed(id, reason: error?.message ?? "ended before answering"))
        }
        if let error, error.code != .cancelled { lastFailure = error }
        perform(plan.ended(id, failure: (error ?? lastFailure)?.message))
    }

    // MARK: Private

    private func perform(_ actions: [SegmentPlan.Action]) {
        for action in actions where !isOver {
            switch action {
            case .fetch(let id, let first, let last, let source):
                var request = self.source(source)
                answered.remove(id)
                request.headers.set("Range", "bytes=\(first)-\(last)")
                if let validator { request.headers.set("If-Range", validator) }
                let task = session.dataTask(with: request)
                task.delegate = SegmentRequest(owner: self, id: id)
                requests[id] = task
                if !suspended { task.resume() }
            case .stop(let id):
                requests.removeValue(forKey: id)?.cancel()
            case .drop(let source, let reason):
                download.mirrorDropped(self.source(source).url, reason: reason)
            case .complete:
                finish(nil)
            case .fail(let message):
                finish(lastFailure ?? TransferError(.networkConnectionLost, message, failingURL: request.url))
            }
        }
    }

    /// The request for a source; the mirrors were read twice (for the plan, then here), so a list changed in
    /// between (the documentation says before `resume()`) falls back to the task's own URL rather than trapping.
    private func source(_ index: Int) -> Request {
        sources.indices.contains(index) ? sources[index] : request
    }

    private func finish(_ error: TransferError?) {
        guard !isOver else { return }
        isOver = true
        requests.removeAll()
        if error == nil { session.finishTasksAndInvalidate() } else { session.invalidateAndCancel() }
        download.segmentsEnded(error)
    }
}

/// The delegate of one segment's request; its calls arrive on the download's writer queue.
private final class SegmentRequest: SessionDataDelegate, @unchecked Sendable {
    private let owner: SegmentedDownload
    private let id: Int

    init(owner: SegmentedDownload, id: Int) {
        self.owner = owner
        self.id = id
    }

    func urlSession(_ session: Session, dataTask: DataTask, didReceive response: Response,
                    completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) {
        completionHandler(owner.responseArrived(id, dataTask, response))
    }

    func urlSession(_ session: Session, dataTask: DataTask, didReceive data: Data) {
        owner.received(id, dataTask, data)
    }

    func urlSession(_ session: Session, task: SessionTask, didCompleteWithError error: TransferError?) {
        guard let dataTask = task as? DataTask else { return }
        owner.ended(id, dataTask, error)
    }
}
