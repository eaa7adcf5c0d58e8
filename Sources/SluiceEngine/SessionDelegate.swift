// The delegate protocols of a session and its tasks; every method is optional through a default.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

public protocol SessionDelegate: AnyObject, Sendable {
    /// The session was invalidated; `error` is nil after `finishTasksAndInvalidate` or `invalidateAndCancel`.
    func urlSession(_ session: Session, didBecomeInvalidWithError error: TransferError?)
}

public protocol SessionTaskDelegate: SessionDelegate {
    /// The last call a task makes, exactly once; `error` is nil on success (an HTTP 404 is a success here).
    func urlSession(_ session: Session, task: SessionTask, didCompleteWithError error: TransferError?)
    func urlSession(_ session: Session, task: SessionTask, didSendBodyData bytesSent: Int64,
                    totalBytesSent: Int64, totalBytesExpectedToSend: Int64)
    /// A response redirects (301, 302, 303, 307 or 308 with a Location). `request` is the one the engine would
    /// send next (303, and 301 or 302 after a POST, become GET; credentials stay behind when the origin changes).
    /// Answer with it, a changed copy, or nil to take the redirect response itself as the task's response. The
    /// transfer waits for the answer, from any thread, at any later time. Without an implementation every
    /// redirect is followed, up to the configuration's `maximumRedirects`.
    func urlSession(_ session: Session, task: SessionTask, willPerformHTTPRedirection response: Response,
                    newRequest request: Request, completionHandler: @escaping @Sendable (Request?) -> Void)
    /// Timings and connections of every request the task sent, once, just before `didCompleteWithError`.
    func urlSession(_ session: Session, task: SessionTask, didFinishCollecting metrics: TaskMetrics)
    /// A server (401) or proxy (407) asks for a credential. The transfer waits for the answer, from any thread,
    /// at any later time, as it does for a response. Without an implementation: default handling (a stored
    /// credential for the space, else the 401 or 407 is the task's response).
    func urlSession(_ session: Session, task: SessionTask, didReceive challenge: AuthenticationChallenge,
                    completionHandler: @escaping @Sendable (ChallengeDisposition) -> Void)
    /// An upload streamed from an `UploadStream` must be sent again (a 307 or 308 redirect, an authentication
    /// retry): answer with a new stream that gives the same bytes, or nil to end the task with
    /// `.requestBodyStreamExhausted`. From any thread, at any later time.
    func urlSession(_ session: Session, task: SessionTask,
                    needNewBodyStream completionHandler: @escaping @Sendable (UploadStream?) -> Void)
    /// A 1xx response before the final one (103 Early Hints, for one); the transfer does not wait for it.
    func urlSession(_ session: Session, task: SessionTask, didReceiveInformationalResponse response: Response)
}

public protocol SessionDataDelegate: SessionTaskDelegate {
    /// Called once per response (once per part for multipart/x-mixed-replace). No body byte is delivered and the
    /// transfer stays paused until `completionHandler` is called, from any thread, at any later time.
    func urlSession(_ session: Session, dataTask: DataTask, didReceive response: Response,
                    completionHandler: @escaping @Sendable (ResponseDisposition) -> Void)
    /// One chunk of the body, in order, as it arrives.
    func urlSession(_ session: Session, dataTask: DataTask, didReceive data: Data)
    /// The transfer continues as `downloadTask` (after `.becomeDownload` or `convertToDownload()`); the data task
    /// gets no further call. Call `downloadTask.prependReceivedData(_:)` here to put the bytes already received
    /// at the start of its file.
    func urlSession(_ session: Session, dataTask: DataTask, didBecome downloadTask: DownloadTask)
}

public protocol SessionDownloadDelegate: SessionTaskDelegate {
    /// The body is complete in the file at `location`, which the engine removes when this returns unless the
    /// delegate moved it.
    func urlSession(_ session: Session, downloadTask: DownloadTask, didFinishDownloadingTo location: URL)
    /// Progress, at most about ten times a second and once at the end. `totalBytesExpectedToWrite` is -1 while unknown.
    func urlSession(_ session: Session, downloadTask: DownloadTask, didWriteData bytesWritten: Int64,
                    totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64)
    /// A download from resume data continues at `fileOffset` (0 when the server sent the whole body again).
    func urlSession(_ session: Session, downloadTask: DownloadTask, didResumeAtOffset fileOffset: Int64,
                    expectedTotalBytes: Int64)
}

// The defaults make every method optional the way URLSession does, method by method: a task's own delegate that
// does not implement a method passes the call on to the session's delegate; the session's delegate, not
// implementing it, gets the default behaviour (follow the redirect, allow the response, nothing else).

extension SessionDelegate {
    public func urlSession(_ session: Session, didBecomeInvalidWithError error: TransferError?) {}
}

extension SessionTaskDelegate {
    /// Who answers what `self` leaves unimplemented: for an engine collector (completion handler, async call),
    /// the task's own delegate given to the async call, then the session's; for a task's own delegate, the
    /// session's; for the session's delegate, nobody.
    func fallback(in session: Session, for task: SessionTask) -> SessionTaskDelegate? {
        if task.internalDelegate === self, let own = task.delegate, own !== self { return own }
        guard let next = session.delegateAsTaskDelegate, next !== self else { return nil }  // cast once by the session
        return next
    }

    public func urlSession(_ session: Session, task: SessionTask, didCompleteWithError error: TransferError?) {
        fallback(in: session, for: task)?.urlSession(session, task: task, didCompleteWithError: error)
    }
    public func urlSession(_ session: Session, task: SessionTask, didSendBodyData bytesSent: Int64,
                           totalBytesSent: Int64, totalBytesExpectedToSend: Int64) {
        fallback(in: session, for: task)?.urlSession(session, task: task, didSendBodyData: bytesSent, totalBytesSent: totalBytesSent,
                                          totalBytesExpectedToSend: totalBytesExpectedToSend)
    }
    public func urlSession(_ session: Session, task: SessionTask, willPerformHTTPRedirection response: Response,
                           newRequest request: Request, completionHandler: @escaping @Sendable (Request?) -> Void) {
        guard let next = fallback(in: session, for: task) else { return completionHandler(request) }
        next.urlSession(session, task: task, willPerformHTTPRedirection: response, newRequest: request,
                        completionHandler: completionHandler)
    }
    public func urlSession(_ session: Session, task: SessionTask, didFinishCollecting metrics: TaskMetrics) {
        fallback(in: session, for: task)?.urlSession(session, task: task, didFinishCollecting: metrics)
    }
    public func urlSession(_ session: Session, task: SessionTask,
                           needNewBodyStream completionHandler: @escaping @Sendable (UploadStream?) -> Void) {
        guard let next = fallback(in: session, for: task) else { return completionHandler(nil) }
        next.urlSession(session, task: task, needNewBodyStream: completionHandler)
    }
    public func urlSession(_ session: Session, task: SessionTask, didReceiveInformationalResponse response: Response) {
        fallback(in: session, for: task)?.urlSession(session, task: task, didReceiveInformationalResponse: response)
    }
    public func urlSession(_ session: Session, task: SessionTask, didReceive challenge: AuthenticationChallenge,
                           completionHandler: @escaping @Sendable (ChallengeDisposition) -> Void) {
        guard let next = fallback(in: session, for: task) else { return completionHandler(.performDefaultHandling) }
        next.urlSession(session, task: task, didReceive: challenge, completionHandler: completionHandler)
    }
}

extension SessionDataDelegate {
    private func dataFallback(in session: Session, for task: SessionTask) -> SessionDataDelegate? {
        fallback(in: session, for: task) as? SessionDataDelegate ?? {
            guard let next = session.delegateAsDataDelegate, next !== self else { return nil }
            return next
        }()
    }

    public func urlSession(_ session: Session, dataTask: DataTask, didReceive response: Response,
                           completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) {
        guard let next = dataFallback(in: session, for: dataTask) else { return completionHandler(.allow) }
        next.urlSession(session, dataTask: dataTask, didReceive: response, completionHandler: completionHandler)
    }
    public func urlSession(_ session: Session, dataTask: DataTask, didReceive data: Data) {
        dataFallback(in: session, for: dataTask)?.urlSession(session, dataTask: dataTask, didReceive: data)
    }
    public func urlSession(_ session: Session, dataTask: DataTask, didBecome downloadTask: DownloadTask) {
        dataFallback(in: session, for: dataTask)?.urlSession(session, dataTask: dataTask, didBecome: downloadTask)
    }
}

extension SessionDownloadDelegate {
    private func downloadFallback(in session: Session, for task: SessionTask) -> SessionDownloadDelegate? {
        fallback(in: session, for: task) as? SessionDownloadDelegate ?? {
            guard let next = session.delegate as? SessionDownloadDelegate, next !== self else { return nil }
            return next
        }()
    }

    public func urlSession(_ session: Session, downloadTask: DownloadTask, didWriteData bytesWritten: Int64,
                           totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {
        downloadFallback(in: session, for: downloadTask)?.urlSession(session, downloadTask: downloadTask, didWriteData: bytesWritten,
                                                  totalBytesWritten: totalBytesWritten,
                                                  totalBytesExpectedToWrite: totalBytesExpectedToWrite)
    }
    public func urlSession(_ session: Session, downloadTask: DownloadTask, didResumeAtOffset fileOffset: Int64,
                           expectedTotalBytes: Int64) {
        downloadFallback(in: session, for: downloadTask)?.urlSession(session, downloadTask: downloadTask, didResumeAtOffset: fileOffset,
                                                  expectedTotalBytes: expectedTotalBytes)
    }
}
