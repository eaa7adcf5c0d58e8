// Asks a URL for its first byte and keeps only the head: status, the whole size and the validators, for
// `RefreshCheck`. A private session, so that nothing of the probe appears as a task; the body is never read.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import SluiceEngine
import SluiceLock
import SluiceViewModel

public final class URLProbe: SessionDataDelegate {
    private let done: Locked<(@Sendable (Result<RefreshCheck.New, TransferError>) -> Void)?>

    private init(_ done: @escaping @Sendable (Result<RefreshCheck.New, TransferError>) -> Void) {
        self.done = Locked(done)
    }

    /// `request` with `Range: bytes=0-0`, through a session of `configuration`; `done` is called once.
    public static func probe(_ request: Request, configuration: SessionConfiguration,
                      done: @escaping @Sendable (Result<RefreshCheck.New, TransferError>) -> Void) {
        var configuration = configuration
        configuration.timeoutIntervalForRequest = min(configuration.timeoutIntervalForRequest, 30)
        let probe = URLProbe(done)
        let session = Session(configuration: configuration, delegate: probe)
        var ranged = request
        ranged.method = "GET"
        ranged.body = nil
        ranged.headers.set("Range", "bytes=0-0")
        // The bytes as a download receives them (a download asks for no encoding): a server that compresses what
        // the request accepts answers a Range with 200 and gzip, which says neither the size nor the range.
        ranged.headers.set("Accept-Encoding", "identity")
        session.dataTask(with: ranged).resume()
        session.finishTasksAndInvalidate()
    }

    /// The same, waited for: from a command's own thread, never from a delegate queue.
    public static func answer(_ request: Request, configuration: SessionConfiguration) -> Result<RefreshCheck.New, TransferError> {
        let answered = Locked<Result<RefreshCheck.New, TransferError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        probe(request, configuration: configuration) { result in
            answered.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return answered.withLock { $0 } ?? .failure(TransferError(.badServerResponse, "no answer"))
    }

    public func urlSession(_ session: Session, dataTask: DataTask, didReceive response: Response,
                    completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) {
        let status = response.statusCode ?? 0
        let range = status == 206 ? response.headers["Content-Range"].flatMap(ContentRange.parse) : nil
        let size: Int64? = status == 206 ? range?.total : (response.expectedContentLength >= 0 ? response.expectedContentLength : nil)
        finish(.success(RefreshCheck.New(status: status, size: size, etag: response.headers["ETag"],
                                         lastModified: response.headers["Last-Modified"], sent: range.map { $0.first...$0.last })))
        completionHandler(.cancel)
    }

    public func urlSession(_ session: Session, task: SessionTask, didCompleteWithError error: TransferError?) {
        finish(.failure(error ?? TransferError(.badServerResponse, "no response")))
    }

    private func finish(_ result: Result<RefreshCheck.New, TransferError>) {
        let told = done.withLock { done -> (@Sendable (Result<RefreshCheck.New, TransferError>) -> Void)? in
            defer { done = nil }
            return done
        }
        told?(result)
    }
}
