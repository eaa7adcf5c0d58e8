// URLSession's background sessions for Linux: `BackgroundSession(configuration: .background(identifier:))` hands
// downloads to the daemon of that identifier (started when absent), where they go on after this process ends.
// Opening the session again attaches to the daemon: the delegate first hears how each task ended that finished
// while nobody listened, then `backgroundSessionDidFinishEvents`, then the live progress of the others.
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
import SluiceLock
import SluiceTUI
import SluiceViewModel

/// A task of a background session: the daemon's row.
public struct BackgroundTask: Sendable, Hashable {
    public let taskIdentifier: Int
    public let url: String
}

/// Called on the session's delegate queue, one call at a time, in the order things happened.
public protocol BackgroundSessionDelegate: AnyObject, Sendable {
    func backgroundSession(_ session: BackgroundSession, task: BackgroundTask, didWriteData bytesWritten: Int64,
                           totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64)
    /// The download is complete at `location`, its final place (the daemon has moved it there already).
    func backgroundSession(_ session: BackgroundSession, task: BackgroundTask, didFinishDownloadingTo location: URL)
    /// The task ended: nil on success. An HTTP error status is a success here, as in URLSession.
    func backgroundSession(_ session: BackgroundSession, task: BackgroundTask, didCompleteWithError error: TransferError?)
    /// Every event held for this session while nobody listened has been delivered.
    func backgroundSessionDidFinishEvents(_ session: BackgroundSession)
    /// The daemon went away (stopped, killed); the tasks resume when it starts again, which opening the session does.
    func backgroundSession(_ session: BackgroundSession, didLoseDaemon reason: String)
}

extension BackgroundSessionDelegate {
    public func backgroundSession(_ session: BackgroundSession, task: BackgroundTask, didWriteData bytesWritten: Int64,
                                  totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {}
    public func backgroundSession(_ session: BackgroundSession, task: BackgroundTask, didFinishDownloadingTo location: URL) {}
    public func backgroundSession(_ session: BackgroundSession, task: BackgroundTask, didCompleteWithError error: TransferError?) {}
    public func backgroundSessionDidFinishEvents(_ session: BackgroundSession) {}
    public func backgroundSession(_ session: BackgroundSession, didLoseDaemon reason: String) {}
}

public final class BackgroundSession: Sendable {
    public let identifier: String
    public let configuration: SessionConfiguration
    private let client: DaemonClient
    private let delegate: BackgroundSessionDelegate?
    /// Every delegate call and every look at `state` happens here.
    private let queue = DispatchQueue(label: "sluice.background.delegate")

    private struct State {
        var model = Model()
        /// Rows whose end has been told to the delegate (and removed from the daemon).
        var delivered: Set<Int> = []
    }

    private let state = Locked(State())
    private let stream: Locked<AttachStream?> = Locked(nil)

    /// Opens the background session: starts the daemon of `configuration.identifier` when none answers (running
    /// `executable`, by default the `sluice` found on PATH) and attaches to it. Downloads with no file named go to
    /// `configuration.downloadDirectory`.
    public init(configuration: SessionConfiguration, delegate: BackgroundSessionDelegate?, executable: String? = nil,
                environment: [String: String] = ProcessInfo.processInfo.environment) throws(DaemonFailure) {
        guard let identifier = configuration.identifier else {
            throw DaemonFailure("a background session needs SessionConfiguration.background(identifier:)")
        }
        let paths = try DaemonPaths(identifier: identifier, environment: environment)
        guard let program = executable ?? FileOpener.find("sluice", environment: environment) else {
            throw DaemonFailure("no sluice executable on PATH to run the background daemon; pass executable:")
        }
        try DaemonLauncher.ensureRunning(paths, arguments: ["daemon", "--detached", "--id", identifier,
                                                            "--output-dir", configuration.downloadDirectory], executable: program,
                                        environment: environment)
        self.identifier = identifier
        self.configuration = configuration
        self.delegate = delegate
        client = DaemonClient(socketPath: paths.socket)
        let reader = AttachStream(client: client, line: { [weak self] line in
            guard let self else { return }
            queue.async { self.take(line) }
        }, ended: { [weak self] reason in
            guard let self, let reason else { return }
            queue.async { self.delegate?.backgroundSession(self, didLoseDaemon: reason) }
        })
        stream.withLock { $0 = reader }
    }

    /// Hands a download to the daemon, which starts it at once (there is no suspended background task to resume:
    /// the daemon's queue decides when it runs). Saved at `file` (absolute), else in the configuration's download
    /// directory under the URL's name.
    public func downloadTask(with url: URL, to file: String? = nil) throws(DaemonFailure) -> BackgroundTask {
        var fields = [("url", JSONText.quote(url.absoluteString))]
        if let file { fields.append(("output", JSONText.quote(file))) } else { fields.append(("directory", JSONText.quote(configuration.downloadDirectory))) }
        let reply = try client.send("POST", "/tasks", body: "{" + fields.map { JSONText.quote($0.0) + ":" + $0.1 }.joined(separator: ",") + "}")
        guard reply.status == 201, let id = (try? JSONDecoder().decode(Added.self, from: Data(reply.body.utf8)))?.id else {
            throw DaemonFailure(Self.error(in: reply))
        }
        return BackgroundTask(taskIdentifier: id, url: url.absoluteString)
    }

    public func suspend(_ task: BackgroundTask) throws(DaemonFailure) { try control(task, "suspend") }
    public func resume(_ task: BackgroundTask) throws(DaemonFailure) { try control(task, "resume") }
    public func cancel(_ task: BackgroundTask) throws(DaemonFailure) { try control(task, "cancel") }

    /// Stops listening; the daemon's tasks go on, and the next session of this identifier hears how they ended.
    public func detach() { stream.withLock { $0 }?.detach() }

    private func control(_ task: BackgroundTask, _ action: String) throws(DaemonFailure) {
        let reply = try client.send("POST", "/tasks/\(task.taskIdentifier)/\(action)")
        guard reply.status == 200 else { throw DaemonFailure(Self.error(in: reply)) }
    }

    // MARK: Events (on `queue`)

    private func take(_ line: AttachLine) {
        switch line {
        case .snapshot(let snapshot):
            state.withLock { s in for row in snapshot.rows { s.model.apply(.restored(row)) } }
            deliverEnded(failuresToo: true)
            delegate?.backgroundSessionDidFinishEvents(self)
        case .events(let events):
            for event in events {
                state.withLock { $0.model.apply(event) }
                if case .engine(let record) = event, case .didWriteData(let bytes, let total, let expected) = record.event,
                   let task = task(record.taskIdentifier) {
                    delegate?.backgroundSession(self, task: task, didWriteData: bytes, totalBytesWritten: total, totalBytesExpectedToWrite: expected)
                }
            }
            deliverEnded(failuresToo: false)
            // A failed attempt is told only once the daemon has decided against a retry, which follows its end
            // within the same delegate call there: a moment later, it has.
            queue.asyncAfter(deadline: .now() + 1) { [weak self] in self?.deliverEnded(failuresToo: true) }
        case .removed:
            break
        }
    }

    private func task(_ id: Int) -> BackgroundTask? {
        state.withLock { s in s.model.row(id).map { BackgroundTask(taskIdentifier: $0.id, url: $0.url) } }
    }

    /// Tells the delegate how each ended row ended, once, then removes it from the daemon (delivered, as a
    /// background session's task is gone once its completion has been handed over).
    private func deliverEnded(failuresToo: Bool) {
        let ended = state.withLock { s -> [TaskRow] in
            let rows = s.model.rows.filter { row in
                guard !s.delivered.contains(row.id), row.retry == nil, let outcome = row.outcome, row.becameTask == nil else { return false }
                if case .finished = outcome { return row.kind != .download || row.savedPath != nil }
                return failuresToo
            }
            s.delivered.formUnion(rows.map(\.id))
            return rows
        }
        for row in ended {
            let task = BackgroundTask(taskIdentifier: row.id, url: row.url)
            if let saved = row.savedPath {
                delegate?.backgroundSession(self, task: task, didFinishDownloadingTo: URL(fileURLWithPath: saved))
            }
            delegate?.backgroundSession(self, task: task, didCompleteWithError: Self.error(of: row))
            _ = try? client.send("DELETE", "/tasks/\(row.id)", timeout: 5)
        }
    }

    private static func error(of row: TaskRow) -> TransferError? {
        switch row.outcome {
        case .failed(let failure)?: return TransferError(failure.code, failure.message, curlCode: failure.curlCode, failingURL: URL(string: row.url))
        case .cancelled?: return TransferError(.cancelled, "cancelled", failingURL: URL(string: row.url))
        default: return nil
        }
    }

    private struct Added: Decodable { let id: Int }
    private struct ErrorBody: Decodable { let error: String }

    private static func error(in reply: DaemonResponse) -> String {
        (try? JSONDecoder().decode(ErrorBody.self, from: Data(reply.body.utf8)))?.error ?? "the daemon answered \(reply.status)"
    }
}
