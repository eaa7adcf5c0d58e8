// `sluice get --mermaid FILE`, `--har FILE` and `--har-bodies`: the flow is recorded from the event stream (the one
// `--trace` prints) and written when the transfers end, a failed one included. Several URLs make one diagram.
import ArgumentParser
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
import SluiceTUI
import SluiceViewModel
import Synchronization

struct FlowExportOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: ArgumentHelp("Write the delegate flow as a Mermaid sequence diagram; several URLs go into one diagram.",
                               valueName: "file"))
    var mermaid: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Write the requests and responses (each redirect too) as a HAR 1.2 file.", valueName: "file"))
    var har: String?

    @Flag(help: "With --har, put the response bodies in it (base64 unless text). One URL only.")
    var harBodies = false

    func validate() throws {
        if harBodies && har == nil { throw ValidationError("--har-bodies needs --har FILE") }
    }

    /// A recorder when a file was asked for, after checking that no existing file would be replaced.
    func recorder(urls: Int) throws -> FlowRecorder? {
        guard mermaid != nil || har != nil else { return nil }
        if harBodies && urls > 1 { throw CLIFailure(code: 2, message: "--har-bodies takes one URL") }
        for case let path? in [mermaid, har] where access(path, F_OK) == 0 {
            throw CLIFailure(code: 1, message: "\(Sanitized.text(path)) already exists; choose another name or remove it")
        }
        if let mermaid, mermaid == har { throw CLIFailure(code: 2, message: "--mermaid and --har need two files") }
        return FlowRecorder(mermaid: mermaid, har: har, keepsBodies: harBodies)
    }
}

/// Keeps every task's flow (and, for `--har-bodies`, its body) while the transfers run, then writes the files.
final class FlowRecorder: Sendable {
    /// The recorder of the `sluice get` running on this thread, so that the code making the tasks reaches it
    /// without every function taking it (nil without --mermaid and --har).
    @TaskLocal static var current: FlowRecorder?

    /// The event monitor: the recorder's, then `next`.
    static func monitor(then next: TaskEventMonitor?) -> TaskEventMonitor? {
        current.map { $0.monitor(then: next) } ?? next
    }

    /// `task`, noted by the current recorder if there is one.
    @discardableResult
    static func observe<T: SessionTask>(_ task: T) -> T { current?.observe(task) ?? task }

    private let mermaid: String?
    private let har: String?
    private let keepsBodies: Bool
    private let clock: WallClock
    private let log = Mutex(FlowLog())
    private let bodies = Mutex<[Int: Data]>([:])
    /// A body larger than this is left out of the HAR (with a note on stderr); the file is meant to be shared.
    static let bodyLimit = 64 << 20

    init(mermaid: String?, har: String?, keepsBodies: Bool) {
        self.mermaid = mermaid
        self.har = har
        self.keepsBodies = keepsBodies
        clock = .now
    }

    /// Records each event, then hands it on (to `--trace`'s printer).
    func monitor(then next: TaskEventMonitor?) -> TaskEventMonitor {
        { [self] record in
            log.withLock { $0.record(record) }
            next?(record)
        }
    }

    /// Notes the task's request; with `--har-bodies` the task's delegate keeps a copy of its body.
    func observe<T: SessionTask>(_ task: T) -> T {
        let request = task.originalRequest
        log.withLock {
            $0.add(TaskFlow(id: task.taskIdentifier, url: request.url.absoluteString, method: request.method,
                            kind: task is DownloadTask ? .download : .data,
                            requestHeaders: request.headers.map { HeaderLine($0.name, $0.value) },
                            at: DispatchTime.now().uptimeNanoseconds))
        }
        if keepsBodies { task.delegate = BodyCopier(recorder: self, root: task.taskIdentifier) }
        return task
    }

    fileprivate func keep(_ data: Data, for root: Int) {
        bodies.withLock { all in
            var body = all[root] ?? Data()
            guard body.count + data.count <= Self.bodyLimit else { return }
            body.append(data)
            all[root] = body
        }
    }

    /// A download's file holds the whole body (with the bytes its data task had, when they were put first).
    fileprivate func keepFile(_ path: String, for root: Int) {
        guard let data = FileManager.default.contents(atPath: path), data.count <= Self.bodyLimit else { return }
        bodies.withLock { all in
            let shown = all[root] ?? Data()
            all[root] = data.starts(with: shown) ? data : shown + data
        }
    }

    /// After a failed transfer: the files are written all the same (a failure is worth a diagram), and a problem
    /// writing them is reported beside the transfer's own.
    func writeAfterFailure() {
        do { try write() } catch { StandardStreams.error("sluice: \(error.message)\n") }
    }

    /// Writes the files asked for; the first problem is thrown after both were tried.
    func write() throws(CLIFailure) {
        let (flows, kept) = (log.withLock { $0 }, bodies.withLock { $0 })
        let chains = flows.chains
        var problem: CLIFailure?
        if let mermaid {
            let ids = chains.compactMap { $0.first.map { String($0.id) } }
            let title = "sluice get, observed delegate flow of task" + (ids.count == 1 ? " " : "s ") + ids.joined(separator: ", ")
            problem = Self.save(MermaidWriter.text(SequenceDiagram.of(chains), title: title), to: mermaid)
        }
        if let har {
            problem = Self.save(HARWriter.text(chains, clock: clock, title: "sluice get", bodies: keepsBodies ? kept : [:]), to: har) ?? problem
        }
        if let problem { throw problem }
    }

    /// Writes beside the target, then links it into place: a file that appeared meanwhile is not replaced.
    private static func save(_ text: String, to path: String) -> CLIFailure? {
        let temporary = path + ".sluice-\(getpid()).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return failure(path) }
        let ok = FileDescriptorSink(fd: fd).write(Data(text.utf8))
        close(fd)
        defer { unlink(temporary) }
        guard ok, link(temporary, path) == 0 else { return failure(path) }
        return nil
    }

    private static func failure(_ path: String) -> CLIFailure {
        CLIFailure(code: 1, message: "cannot write \(Sanitized.text(path)): \(String(cString: strerror(errno)))")
    }
}

/// A task's own delegate that copies the body for the HAR and passes every call on to the session's delegate.
private final class BodyCopier: SessionDataDelegate, SessionDownloadDelegate, Sendable {
    private let recorder: FlowRecorder
    private let root: Int

    init(recorder: FlowRecorder, root: Int) {
        self.recorder = recorder
        self.root = root
    }

    func urlSession(_ session: Session, dataTask: DataTask, didReceive data: Data) {
        recorder.keep(data, for: root)
        (session.delegate as? SessionDataDelegate)?.urlSession(session, dataTask: dataTask, didReceive: data)
    }

    func urlSession(_ session: Session, downloadTask: DownloadTask, didFinishDownloadingTo location: URL) {
        recorder.keepFile(location.path, for: root)
        (session.delegate as? SessionDownloadDelegate)?.urlSession(session, downloadTask: downloadTask, didFinishDownloadingTo: location)
    }
}
