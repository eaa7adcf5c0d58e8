// The session delegate behind the UI: holds dispositions the user answers, keeps a data task's bytes so a
// conversion can put them first, and saves finished downloads under safe, never-overwriting names.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import SluiceEngine
import SluiceViewModel
import Synchronization

final class TUIDelegate: SessionDataDelegate, SessionDownloadDelegate, Sendable {
    /// A data task keeps at most this many received bytes for a later conversion.
    static let keepLimit = 32 << 20

    private struct State {
        var tasks: [Int: SessionTask] = [:]
        var asking: Set<Int> = []
        var handlers: [Int: @Sendable (ResponseDisposition) -> Void] = [:]
        var kept: [Int: KeptBytes] = [:]
        var overflowed: Set<Int> = []
    }

    private let state: Mutex<State>
    private let outputDirectory: String
    private let post: @Sendable (ModelEvent) -> Void

    init(outputDirectory: String, post: @escaping @Sendable (ModelEvent) -> Void) {
        self.outputDirectory = outputDirectory
        self.post = post
        state = Mutex(State())
    }

    func track(_ task: SessionTask, asks: Bool) {
        state.withLock { s in
            s.tasks[task.taskIdentifier] = task
            if asks { s.asking.insert(task.taskIdentifier) }
        }
    }

    func task(_ id: Int) -> SessionTask? { state.withLock { $0.tasks[id] } }

    /// A completed task's row is gone: nothing refers to it any more.
    func forget(_ id: Int) { state.withLock { _ = $0.tasks.removeValue(forKey: id) } }

    var tasks: [SessionTask] { state.withLock { Array($0.tasks.values) } }

    /// Answers a held response; false when the task is not waiting for one.
    func answer(_ id: Int, _ disposition: ResponseDisposition) -> Bool {
        guard let handler = state.withLock({ $0.handlers.removeValue(forKey: id) }) else { return false }
        handler(disposition)
        return true
    }

    // MARK: Delegate calls (delegate queue)

    func urlSession(_ session: Session, dataTask: DataTask, didReceive response: Response,
                    completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) {
        let id = dataTask.taskIdentifier
        let capacity = min(Self.keepLimit, response.expectedContentLength >= 0 ? Int(response.expectedContentLength) : Self.keepLimit)
        let asks = state.withLock { s -> Bool in
            s.kept[id] = KeptBytes(capacity: capacity)  // a new part starts a new body
            s.overflowed.remove(id)
            guard s.asking.contains(id) else { return false }
            s.handlers[id] = completionHandler
            return true
        }
        if !asks { completionHandler(.allow) }
    }

    func urlSession(_ session: Session, dataTask: DataTask, didReceive data: Data) {
        let id = dataTask.taskIdentifier
        state.withLock { s in
            guard !s.overflowed.contains(id), let kept = s.kept[id] else { return }
            if !kept.append(data) {
                s.kept[id] = nil
                s.overflowed.insert(id)
            }
        }
    }

    func urlSession(_ session: Session, dataTask: DataTask, didBecome downloadTask: DownloadTask) {
        let (kept, lost) = state.withLock { s -> (Data, Bool) in
            s.tasks[downloadTask.taskIdentifier] = downloadTask
            defer { s.kept[dataTask.taskIdentifier] = nil }
            return (s.kept[dataTask.taskIdentifier]?.take() ?? Data(), s.overflowed.remove(dataTask.taskIdentifier) != nil)
        }
        if !kept.isEmpty { downloadTask.prependReceivedData(kept) }
        if lost {
            post(.note(id: downloadTask.taskIdentifier,
                       "the first \(ByteCountText.format(dataTask.countOfBytesReceived)) were shown but not kept; the file holds the rest"))
        }
    }

    func urlSession(_ session: Session, downloadTask: DownloadTask, didFinishDownloadingTo location: URL) {
        switch DownloadPlacement.link(location.path, into: outputDirectory, suggested: downloadTask.response?.suggestedFilename) {
        case .success(let path): post(.saved(id: downloadTask.taskIdentifier, path: path))
        case .failure(let problem): post(.note(id: downloadTask.taskIdentifier, problem.message))
        }
    }

    func urlSession(_ session: Session, task: SessionTask, didCompleteWithError error: TransferError?) {
        state.withLock { s in
            s.handlers[task.taskIdentifier] = nil
            s.kept[task.taskIdentifier] = nil
        }
    }
}
