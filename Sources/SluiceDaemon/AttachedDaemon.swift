// The screen's driver for `sluice attach`: the daemon's model arrives over `GET /attach` (read on a thread of its
// own) and every key becomes a request to the daemon's API. Quitting only closes the stream: the transfers are
// the daemon's and go on.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import SluiceEngine
import SluiceLock
import SluiceTUI
import SluiceViewModel

public final class AttachedDaemon: InterfaceDriver, Sendable {
    private let client: DaemonClient
    /// Where `add` saves downloads and the exports go: the attaching user's directory (absolute).
    private let directory: String

    /// What the reader hands over: lines not yet drained, and why the stream ended.
    private struct Incoming {
        var lines: [AttachLine] = []
        var ended: String?
        var identifier: String?
        /// Set while this UI asks the daemon to stop: the stream's close is then the answer, not an ending.
        var stopping = false
        /// Told when a line arrives while none waited to be drained, and when the stream ends.
        var wake: (@Sendable () -> Void)?
    }

    private let incoming: Locked<Incoming>
    /// Where a refresh's answer goes (see `InterfaceDriver.onAnswer`).
    private let answers = Locked<(@Sendable (String) -> Void)?>(nil)
    private let stream: AttachStream

    /// Starts reading the daemon's model; `ended` says when that failed or stopped.
    public init(client: DaemonClient, directory: String) {
        self.client = client
        self.directory = directory
        let incoming = Locked(Incoming())
        self.incoming = incoming
        stream = AttachStream(client: client, line: { line in
            let wake = incoming.withLock { state -> (@Sendable () -> Void)? in
                if case .snapshot(let snapshot) = line { state.identifier = snapshot.identifier }
                state.lines.append(line)
                return state.lines.count == 1 ? state.wake : nil
            }
            wake?()
        }, ended: { reason in
            guard let reason else { return }
            let wake = incoming.withLock { state -> (@Sendable () -> Void)? in
                state.ended = reason
                return state.wake
            }
            wake?()
        })
    }

    /// The daemon's identifier, once its first line has come.
    public var identifier: String? { incoming.withLock { $0.identifier } }

    // MARK: InterfaceDriver

    public func drain(into model: inout Model, flows: inout PendingFlows) -> Bool {
        let lines = incoming.withLock { state -> [AttachLine] in
            defer { state.lines = [] }
            return state.lines
        }
        for line in lines {
            switch line {
            case .snapshot(let snapshot):
                let restored = snapshot.rows.map { ModelEvent.restored($0) }
                model.apply(contentsOf: restored)
                flows.append(restored)
                model.apply(.sessionRateLimit(snapshot.sessionRateLimit))
            case .events(let events):
                model.apply(contentsOf: events)
                flows.append(events)
            case .removed(let id):
                _ = model.remove(id)
                flows.forget(id)
            }
        }
        return !lines.isEmpty
    }

    public func perform(_ intent: Intent) -> String? {
        switch intent {
        case .add(let text, let kind):
            return AddedText.add(text) { added, url in
                var fields = [("url", JSONText.quote(url)), ("kind", JSONText.quote(kind == .download ? "download" : "data"))]
                if kind == .download { fields.append(("directory", JSONText.quote(directory))) }
                if let parsed = ParsedURL.parse(url), let pasted = added.request(for: parsed) {
                    fields.append(("method", JSONText.quote(pasted.method)))
                    let pairs = pasted.headers.fields.map { "[" + JSONText.quote($0.name) + "," + JSONText.quote($0.value) + "]" }
                    fields.append(("headers", "[" + pairs.joined(separator: ",") + "]"))
                    if let body = pasted.body { fields.append(("body", JSONText.quote(body.base64EncodedString()))) }
                }
                return request("POST", "/tasks", fields)
            }
        case .resume(let id): return request("POST", "/tasks/\(id)/resume")
        case .suspend(let id): return request("POST", "/tasks/\(id)/suspend")
        case .cancel(let id): return request("POST", "/tasks/\(id)/cancel")
        case .convert(let id): return request("POST", "/tasks/\(id)/convert")
        case .move(let id, let step): return request("POST", "/tasks/\(id)/move", [("by", String(step))])
        case .setConcurrency(let jobs): return request("POST", "/limits", [("jobs", String(jobs))])
        case .setSessionRate(let limit): return request("POST", "/limits", [("bytesPerSecond", limit.map(String.init) ?? "null")])
        case .setTaskRate(let id, let limit): return request("POST", "/tasks/\(id)/limit", [("bytesPerSecond", limit.map(String.init) ?? "null")])
        case .refresh(let id, let text):
            // The daemon answers once the new URL has (seconds, maybe): the outcome is told then, and is the row's note.
            let body = [("url", JSONText.quote(text))]
            DispatchQueue.global().async { [self] in
                let answer: String
                do throws(DaemonFailure) {
                    answer = "#\(id) " + TransferApp.refreshNote(try answered("POST", "/tasks/\(id)/refresh", body, timeout: 60))
                } catch {
                    // Not an answer: the daemon may still go on from the new URL, and the row will say so.
                    answer = "#\(id): no answer from the daemon yet (\(Sanitized.text(error.message))); the row says how the refresh goes"
                }
                answers.withLock { $0 }?(answer)
            }
            return "checking the new URL for #\(id)…"
        case .suspendAll: return request("POST", "/all/suspend")
        case .resumeAll: return request("POST", "/all/resume")
        }
    }

    @discardableResult public func forget(_ id: Int) -> String? {
        request("DELETE", "/tasks/\(id)")
    }

    /// The daemon deletes the file it saved (it knows where), as the UI's own purge does.
    public func purge(_ id: Int, savedPath: String?) -> String {
        request("DELETE", "/tasks/\(id)?purge=1") ?? "removed #\(id)"
    }

    public func perform(_ export: Export, model: Model, flows: FlowLog) -> String {
        ExportWriter.write(export, model: model, flows: flows, into: directory)
    }

    /// The daemon samples its split downloads' ranges itself and sends them as events.
    public func segments(of id: Int) -> [DownloadSegment]? { nil }

    public func quit(model: Model) { detach() }

    public func stopDaemon() -> String? {
        // The daemon may close the stream before its answer is read here; that close must not read as an ending.
        incoming.withLock { $0.stopping = true }
        if let problem = request("POST", "/stop") {
            incoming.withLock { $0.stopping = false }
            return problem
        }
        detach()
        return nil
    }

    public var ended: String? { incoming.withLock { $0.stopping ? nil : $0.ended } }

    public func onEvents(_ wake: @escaping @Sendable () -> Void) { incoming.withLock { $0.wake = wake } }

    public func onAnswer(_ tell: @escaping @Sendable (String) -> Void) { answers.withLock { $0 = tell } }

    /// The daemon's tasks go on after this UI: nothing here is ever done.
    public var isDone: Bool { false }

    /// Ends the stream; the daemon's transfers go on.
    public func detach() { stream.detach() }

    // MARK: Requests

    private struct Reply: Decodable {
        let error: String?
        let message: String?
    }

    /// Sends one request; the daemon's error, or its message (a limit set), or nil; a request that got no answer
    /// says why.
    private func request(_ method: String, _ path: String, _ fields: [(String, String)]? = nil, timeout: Int = 5) -> String? {
        do {
            return try answered(method, path, fields, timeout: timeout)
        } catch {
            return error.message
        }
    }

    /// The same, throwing when no answer came (the daemon gone, or slower than `timeout`).
    private func answered(_ method: String, _ path: String, _ fields: [(String, String)]? = nil, timeout: Int = 5) throws(DaemonFailure) -> String? {
        let body = fields.map { "{" + $0.map { JSONText.quote($0.0) + ":" + $0.1 }.joined(separator: ",") + "}" }
        let response = try client.send(method, path, body: body, timeout: timeout)
        let reply = try? JSONDecoder().decode(Reply.self, from: Data(response.body.utf8))
        if !(200..<300).contains(response.status) { return reply?.error.map(Sanitized.text) ?? "the daemon answered \(response.status)" }
        return reply?.message.flatMap { $0.isEmpty ? nil : Sanitized.text($0) }
    }
}
