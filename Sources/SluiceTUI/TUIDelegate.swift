// The session delegate behind the UI: starts tasks in turn, holds dispositions the user answers, keeps a data
// task's bytes so a conversion can put them first, and saves finished downloads under safe, never-overwriting names.
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
    /// A data task keeps at most this many received bytes for a later conversion...
    static let keepLimit = 32 << 20
    /// ...and all of them together at most this many (see docs/decisions.md: past either, `d` saves the rest).
    let keepTotalLimit: Int

    private struct State {
        var tasks: [Int: SessionTask] = [:]
        var asking: Set<Int> = []
        var handlers: [Int: @Sendable (ResponseDisposition) -> Void] = [:]
        var kept: [Int: KeptBytes] = [:]
        var keptTotal = 0
        var overflowed: Set<Int> = []
        var queue: StartQueue

        /// Lets go of a task's kept bytes; true when it had stopped keeping them for lack of room.
        mutating func release(_ id: Int) -> Bool {
            if let bytes = kept.removeValue(forKey: id) { keptTotal -= bytes.count }
            return overflowed.remove(id) != nil
        }
    }

    private let state: Mutex<State>
    private let outputDirectory: String
    private let post: @Sendable (ModelEvent) -> Void

    /// At most `concurrency` tasks transfer at once; the others wait in the order they were added.
    init(outputDirectory: String, concurrency: Int, keepTotalLimit: Int = 64 << 20,
         post: @escaping @Sendable (ModelEvent) -> Void) {
        self.keepTotalLimit = keepTotalLimit
        self.outputDirectory = outputDirectory
        self.post = post
        state = Mutex(State(queue: StartQueue(limit: concurrency)))
    }

    /// Registers a new task; true when it may start now, false when it waits for a running one to complete.
    func track(_ task: SessionTask, asks: Bool) -> Bool {
        state.withLock { s in
            s.tasks[task.taskIdentifier] = task
            if asks { s.asking.insert(task.taskIdentifier) }
            return s.queue.add(task.taskIdentifier)
        }
    }

    /// Bytes kept for conversions, all tasks together, and how many tasks stopped keeping for lack of room.
    var kept: (total: Int, overflowed: Int) { state.withLock { ($0.keptTotal, $0.overflowed.count) } }

    func stopStarting() { state.withLock { $0.queue.stopStarting() } }

    func isQueued(_ id: Int) -> Bool { state.withLock { $0.queue.isWaiting(id) } }

    /// The user resumed a task: if it was waiting its turn, it no longer is.
    func startedByUser(_ id: Int) { state.withLock { $0.queue.startedByUser(id) } }

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
            _ = s.release(id)
            s.kept[id] = KeptBytes(capacity: capacity)  // a new part starts a new body
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
            if s.keptTotal + data.count > keepTotalLimit || !kept.append(data) {
                _ = s.release(id)
                s.overflowed.insert(id)
                return
            }
            s.keptTotal += data.count
        }
    }

    func urlSession(_ session: Session, dataTask: DataTask, didBecome downloadTask: DownloadTask) {
        let (kept, lost) = state.withLock { s -> (Data, Bool) in
            s.tasks[downloadTask.taskIdentifier] = downloadTask
            s.queue.handedOver(from: dataTask.taskIdentifier, to: downloadTask.taskIdentifier)
            let bytes = s.kept[dataTask.taskIdentifier]?.take() ?? Data()
            s.keptTotal -= bytes.count
            return (bytes, s.release(dataTask.taskIdentifier))
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
        let starting = state.withLock { s -> [SessionTask] in
            s.handlers[task.taskIdentifier] = nil
            _ = s.release(task.taskIdentifier)
            return s.queue.finished(task.taskIdentifier).compactMap { s.tasks[$0] }
        }
        for next in starting { next.resume() }  // outside the lock: resuming calls into the session
    }
}
