// Test pieces for downloads: a delegate that records the download flow, and a private directory per test.
import Dispatch
import Foundation
import SluiceEngine
import Synchronization
import SluiceLock
import Testing

/// Records data and download delegate calls. It can convert a data task once `convertAfter` bytes arrived,
/// prepend what the data task received, and cancel with resume data once `cancelAfter` bytes are on disk.
final class DownloadRecorder: SessionDataDelegate, SessionDownloadDelegate, @unchecked Sendable {
    struct State {
        var calls: [String] = []
        var dataBody = Data()
        var became: [(from: Int, to: Int)] = []
        var writes: [(bytes: Int64, total: Int64, expected: Int64)] = []
        var resumedAt: [(offset: Int64, expected: Int64)] = []
        var finishedPath: String?
        var fileBody: Data?
        var completions = 0
        var completedTask: Int?
        var error: TransferError?
        var resumeData: Data?
        var resumeDataCalls = 0
    }

    let state = Locked(State())
    let queue = DispatchQueue(label: "test.download.delegate")
    var plan: @Sendable (Response) -> ResponseDisposition
    var convertAfter: Int?
    var prepend = true
    var cancelAfter: Int64?

    /// `plan` answers every response (default: allow).
    init(plan: @escaping @Sendable (Response) -> ResponseDisposition = { _ in .allow }) {
        self.plan = plan
    }

    private func note(_ call: String, _ update: (inout State) -> Void = { _ in }) {
        state.withLock { s in
            s.calls.append(call)
            update(&s)
        }
    }

    func urlSession(_ session: Session, dataTask: DataTask, didReceive response: Response,
                    completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) {
        note("response")
        completionHandler(plan(response))
    }

    func urlSession(_ session: Session, dataTask: DataTask, didReceive data: Data) {
        let count = state.withLock { s in
            s.calls.append("data")
            s.dataBody.append(data)
            return s.dataBody.count
        }
        if let convertAfter, count >= convertAfter, count - data.count < convertAfter { dataTask.convertToDownload() }
    }

    func urlSession(_ session: Session, dataTask: DataTask, didBecome downloadTask: DownloadTask) {
        let body = state.withLock { s in
            s.calls.append("became")
            s.became.append((dataTask.taskIdentifier, downloadTask.taskIdentifier))
            return s.dataBody
        }
        if prepend { downloadTask.prependReceivedData(body) }
    }

    func urlSession(_ session: Session, downloadTask: DownloadTask, didWriteData bytesWritten: Int64,
                    totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {
        note("write") { $0.writes.append((bytesWritten, totalBytesWritten, totalBytesExpectedToWrite)) }
        if let cancelAfter, totalBytesWritten >= cancelAfter {
            self.cancelAfter = nil
            downloadTask.cancel { data in
                self.note("resumeData") { s in
                    s.resumeData = data
                    s.resumeDataCalls += 1
                }
            }
        }
    }

    func urlSession(_ session: Session, downloadTask: DownloadTask, didResumeAtOffset fileOffset: Int64,
                    expectedTotalBytes: Int64) {
        note("resumed") { $0.resumedAt.append((fileOffset, expectedTotalBytes)) }
    }

    func urlSession(_ session: Session, downloadTask: DownloadTask, didFinishDownloadingTo location: URL) {
        let body = FileManager.default.contents(atPath: location.path)
        note("finished") { s in
            s.finishedPath = location.path
            s.fileBody = body
        }
    }

    func urlSession(_ session: Session, task: SessionTask, didCompleteWithError error: TransferError?) {
        note("complete") { s in
            s.completions += 1
            s.completedTask = task.taskIdentifier
            s.error = error
        }
    }

    var snapshot: State { state.withLock { $0 } }

    func waitForCompletion(_ seconds: Double = 20, sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
        let done = await eventually(seconds) { state.withLock { $0.completions > 0 } }
        if !done { Issue.record("the download did not complete within \(seconds) s", sourceLocation: sourceLocation) }
        return done
    }
}

/// A fresh directory for one test's download files, so that leftovers can be counted.
struct ScratchDirectory {
    let path: String

    init() throws {
        var template = Array((NSTemporaryDirectory() + "/sluice-test-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ $0.baseAddress.flatMap { mkdtemp($0) } }) else {
            throw TransferError(.cannotWriteToFile, "mkdtemp failed")
        }
        path = String(cString: made)
    }

    var entries: [String] { (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// A session whose downloads go to `directory`; without a recorder, for completion handlers and async calls.
func downloadSession(_ recorder: DownloadRecorder?, directory: ScratchDirectory, log: EventLog? = nil,
                     maximumConcurrentTasks: Int = 0) -> Session {
    var configuration = SessionConfiguration.default
    configuration.downloadDirectory = directory.path
    configuration.maximumConcurrentTasks = maximumConcurrentTasks
    return Session(configuration: configuration, delegate: recorder, delegateQueue: recorder?.queue, eventMonitor: log?.monitor)
}
