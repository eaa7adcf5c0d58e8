// Making download tasks: from a request, from resume data, with a completion handler, or with async/await.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

extension Session {
    public func downloadTask(with request: Request) -> DownloadTask {
        register { DownloadTask(identifier: $0, request: request, session: self) }
    }

    public func downloadTask(with url: URL) -> DownloadTask { downloadTask(with: Request(url: url)) }

    /// A download whose bytes go to `partialFile` (created or emptied when the transfer starts), a visible name
    /// beside the final file, so that with `DownloadTask.checkpoint` a killed process loses nothing:
    /// `downloadTask(withResumeData:)` of the last checkpoint continues in the same file. `exclusive`: the caller
    /// found the name free, and the task fails rather than take a file another download made since.
    public func downloadTask(with request: Request, partialFile: String, exclusive: Bool = false) -> DownloadTask {
        register { DownloadTask(identifier: $0, request: request, session: self, partialFile: partialFile, exclusive: exclusive) }
    }

    /// Continues a download stopped by `cancel(byProducingResumeData:)` or by a failure that kept its partial
    /// file. The server is asked for the rest with a Range request guarded by If-Range; a server that sends the
    /// whole body instead restarts the file from zero. Throws when the data is not resume data.
    public func downloadTask(withResumeData resumeData: Data) throws(TransferError) -> DownloadTask {
        guard let resume = ResumeData.decode(resumeData), let url = URL(string: resume.url) else {
            throw TransferError(.cannotReadFile, "the resume data is damaged or not Sluice resume data")
        }
        return register { DownloadTask(identifier: $0, request: Request(url: url), session: self, resumeFrom: resume) }
    }

    /// The handler gets the finished file's location, which is removed when the handler returns.
    public func downloadTask(with request: Request,
                             completionHandler: @escaping @Sendable (URL?, Response?, TransferError?) -> Void) -> DownloadTask {
        let task = downloadTask(with: request)
        task.keepsFile = true
        task.internalDelegate = DownloadCollector { location, response, error in
            completionHandler(location, response, error)
            if let location { unlink(location.path) }
        }
        return task
    }

    /// The finished file and the response; the file is the caller's to move or delete.
    public func download(for request: Request, delegate: SessionTaskDelegate? = nil) async throws(TransferError) -> (URL, Response) {
        try await completion(of: request) { finish in
            let task = downloadTask(with: request)
            task.delegate = delegate
            task.keepsFile = true
            task.internalDelegate = DownloadCollector(finish)
            return task
        }
    }

    public func download(from url: URL, delegate: SessionTaskDelegate? = nil) async throws(TransferError) -> (URL, Response) {
        try await download(for: Request(url: url), delegate: delegate)
    }

    /// Loop thread: a new download task that takes over `dataTask`'s transfer; it counts as started.
    func continueAsDownload(_ dataTask: DataTask, file: DownloadFile, received: Int64) -> DownloadTask {
        register(started: true) { DownloadTask(identifier: $0, continuing: dataTask, file: file, received: received) }
    }
}

/// The delegate behind completion-handler and async download tasks.
final class DownloadCollector: SessionDownloadDelegate, @unchecked Sendable {
    private let completion: @Sendable (URL?, Response?, TransferError?) -> Void
    private var location: URL?  // delegate queue only

    init(_ completion: @escaping @Sendable (URL?, Response?, TransferError?) -> Void) { self.completion = completion }

    func urlSession(_ session: Session, downloadTask: DownloadTask, didFinishDownloadingTo location: URL) {
        self.location = location
    }

    // The handler replaces the download's own calls; redirects and metrics still reach the session's delegate.
    func urlSession(_ session: Session, downloadTask: DownloadTask, didWriteData bytesWritten: Int64,
                    totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {}
    func urlSession(_ session: Session, downloadTask: DownloadTask, didResumeAtOffset fileOffset: Int64,
                    expectedTotalBytes: Int64) {}

    func urlSession(_ session: Session, task: SessionTask, didCompleteWithError error: TransferError?) {
        completion(error == nil ? location : nil, task.response, error)
    }
}
