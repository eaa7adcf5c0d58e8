// A task's observed flow as a sequence diagram: the lifelines, and one step per request, response, delegate call
// and answer, folded run of chunks, redirect, conversion, suspension and completion. Pure: events in, steps out.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SluiceEngine

public struct SequenceDiagram: Equatable, Sendable {
    /// The delegate first, then the tasks in the order they appear, then the server.
    public let lifelines: [LifelineInfo]
    public let steps: [SequenceStep]
    /// The time the first step happened: the view's clock counts from here.
    public let start: UInt64

    /// The diagram of one or more transfers (each a data task and the download it may have become), their
    /// steps merged in time order.
    public static func of(_ chains: [[TaskFlow]]) -> SequenceDiagram {
        var timed: [(step: SequenceStep, chain: Int, order: Int)] = []
        var tasks: [(id: Int, flow: TaskFlow)] = []
        for (c, chain) in chains.enumerated() {
            for flow in chain {
                tasks.append((flow.id, flow))
                for step in steps(of: flow, firstOfChain: flow.id == chain.first?.id) {
                    timed.append((step, c, timed.count))
                }
            }
        }
        // Stable by time; an unanswered question goes last, whatever its time.
        timed.sort { a, b in
            let pa = a.step.shape == .pending, pb = b.step.shape == .pending
            if pa != pb { return pb }
            return (a.step.time, a.order) < (b.step.time, b.order)
        }
        let steps = timed.map(\.step)
        var lifelines = [LifelineInfo(.delegate, names: ["delegate", "dlg"], seedName: "URLSessionDelegate")]
        for (id, flow) in tasks {
            let mine = steps.indices.filter {
                steps[$0].from == .task(id) || steps[$0].to == .task(id) || steps[$0].shape == .data(via: .task(id))
                    || steps[$0].creates == .task(id)
            }
            let kind = flow.kind == .download ? "download" : flow.kind == .upload ? "upload" : "data"
            let seed = flow.kind == .download ? "URLSessionDownloadTask" : flow.kind == .upload ? "URLSessionUploadTask" : "URLSessionDataTask"
            lifelines.append(LifelineInfo(.task(id), names: ["\(kind) task \(id)", "task \(id)", "#\(id)"], seedName: "\(seed) \(id)",
                                          firstStep: mine.first, lastStep: flow.hasEnded ? mine.last : nil))
        }
        let hosts = Set(tasks.compactMap { TaskName.host(of: $0.flow.url) })
        let server = hosts.count == 1 ? hosts.first.map { "server " + SequenceText.clip(Sanitized.text($0), to: 40) } : nil
        lifelines.append(LifelineInfo(.server, names: (server.map { [$0] } ?? []) + ["server", "srv"], seedName: "Server"))
        return SequenceDiagram(lifelines: lifelines, steps: steps, start: steps.first?.time ?? 0)
    }

    /// One task's steps, in the order its events came.
    static func steps(of flow: TaskFlow, firstOfChain: Bool) -> [SequenceStep] {
        let task = Lifeline.task(flow.id)
        var out: [SequenceStep] = []
        let requested = !firstOfChain  // a download made by a conversion continues its data task's request
        var hasRun = false
        var state: TaskState = .suspended
        var waiting: String?  // the question the delegate has not answered yet
        var method = flow.method
        var redirectStatus: Int?
        func call(_ from: Lifeline, _ to: Lifeline, _ at: UInt64, _ labels: [String]) {
            out.append(SequenceStep(.call, from: from, to: to, at: at, labels: labels))
        }
        func reply(_ from: Lifeline, _ to: Lifeline, _ at: UInt64, _ labels: [String]) {
            out.append(SequenceStep(.reply, from: from, to: to, at: at, labels: labels))
        }
        func request(_ at: UInt64, _ url: String) {
            out.append(SequenceStep(.call, from: task, to: .server, at: at, labels: SequenceText.request(method, url), namesURL: true))
        }
        func note(_ at: UInt64, _ labels: [String]) { out.append(SequenceStep(.note, from: task, to: task, at: at, labels: labels)) }

        for (index, e) in flow.events.enumerated() {
            if index == flow.gapIndex {
                out.append(SequenceStep(.gap, from: .delegate, to: .server, at: e.time,
                                        labels: ["… \(flow.dropped) calls not kept", "… \(flow.dropped) not kept", "…"]))
            }
            let t = e.time
            switch e.event {
            case .stateChanged(let next):
                switch next {
                case .running where !hasRun:
                    hasRun = true
                    if !requested { request(t, flow.url) }
                case .running where state == .suspended:
                    note(t, ["resume()"])
                case .suspended where state == .running:
                    note(t, ["suspend()"])
                case .canceling:
                    note(t, ["cancel()"])
                default:
                    break
                }
                state = next
            case .didReceiveResponse(let r):
                reply(.server, task, t, SequenceText.response(r))
                if flow.kind != .download {
                    call(task, .delegate, t, ["urlSession(_:dataTask:didReceive:completionHandler:)", "didReceive response", "response?"])
                    waiting = "completionHandler"
                }
            case .disposition(let d):
                reply(.delegate, task, t, ["completionHandler(.\(d.rawValue))", ".\(d.rawValue)"])
                waiting = nil
            case .didReceiveData:
                let run = SequenceText.run(e)
                out.append(SequenceStep(.data(via: task), from: .server, to: .delegate, at: t,
                                        labels: ["urlSession(_:dataTask:didReceive:) ×\(e.count), " + run.long,
                                                 "didReceive data ×\(e.count), " + run.short, "data ×\(e.count)"],
                                        firstHop: "body, " + run.chunks))
            case .didWriteData:
                guard case .didWriteData(_, let total, let expected) = e.lastEvent else { break }
                let run = SequenceText.run(e)
                let of = expected >= 0 ? " of " + ByteCountText.format(expected) : ""
                out.append(SequenceStep(.data(via: task), from: .server, to: .delegate, at: t,
                                        labels: ["urlSession(_:downloadTask:didWriteData:…) ×\(e.count), " + run.long + ", "
                                                    + ByteCountText.format(total) + of + " written",
                                                 "didWriteData ×\(e.count), " + run.short, "write ×\(e.count)"],
                                        firstHop: "body, " + run.chunks))
            case .didSendBodyData:
                guard case .didSendBodyData(_, let total, let expected) = e.lastEvent else { break }
                let of = expected >= 0 ? " of " + ByteCountText.format(expected) : ""
                out.append(SequenceStep(.data(via: nil), from: task, to: .delegate, at: t,
                                        labels: ["urlSession(_:task:didSendBodyData:…) ×\(e.count), " + ByteCountText.format(total) + of + " sent",
                                                 "didSendBodyData ×\(e.count), " + ByteCountText.format(total), "sent ×\(e.count)"]))
            case .willPerformHTTPRedirection(let r, let target):
                redirectStatus = r.statusCode
                out.append(SequenceStep(.reply, from: .server, to: task, at: t, labels: SequenceText.redirect(r, to: target), namesURL: true))
                call(task, .delegate, t, ["urlSession(_:task:willPerformHTTPRedirection:newRequest:completionHandler:)",
                                          "willPerformHTTPRedirection", "redirect?"])
                waiting = "completionHandler"
            case .redirectAnswer(let followed):
                waiting = nil
                guard let followed else {
                    reply(.delegate, task, t, ["completionHandler(nil): the redirect is the response", "completionHandler(nil)", "nil"])
                    break
                }
                reply(.delegate, task, t, ["completionHandler(request)", "follow"])
                method = SequenceText.method(after: redirectStatus, from: method)
                request(t, followed.absoluteString)
            case .didReceiveChallenge(let space, let failures):
                let what = (space.isProxy ? "proxy " : "") + space.authenticationMethod.rawValue
                let refused = failures > 0 ? ", \(failures) refused" : ""
                if space.authenticationMethod != .serverTrust {
                    reply(.server, task, t, [space.isProxy ? "407 Proxy Authentication Required" : "401 Unauthorized", space.isProxy ? "407" : "401"])
                }
                call(task, .delegate, t, ["urlSession(_:task:didReceive:completionHandler:) " + what + refused,
                                          "didReceive challenge " + what, "challenge?"])
                waiting = "completionHandler"
            case .challengeAnswer(let disposition):
                waiting = nil
                reply(.delegate, task, t, ["completionHandler(.\(disposition))", ".\(disposition)"])
            case .didReceiveInformationalResponse(let r):
                let status = r.statusCode.map(String.init) ?? "1xx"
                reply(.server, task, t, [status + " (informational)", status])
            case .needNewBodyStream:
                call(task, .delegate, t, ["urlSession(_:task:needNewBodyStream:)", "needNewBodyStream", "stream?"])
            case .mirrorDropped(let url, let reason):
                let host = SequenceText.clip(Sanitized.text(url.host ?? url.absoluteString), to: 40)
                note(t, ["mirror \(host) dropped: " + SequenceText.clip(Sanitized.text(reason), to: 120),
                         "mirror \(host) dropped", "mirror dropped"])
            case .didBecomeDownloadTask(let id):
                out.append(SequenceStep(.call, from: task, to: .delegate, at: t,
                                        labels: ["urlSession(_:dataTask:didBecome:) download task \(id)", "didBecome downloadTask \(id)", "→ #\(id)"],
                                        creates: .task(id)))
            case .didFinishDownloadingTo(let location):
                let name = SequenceText.clip(Sanitized.text(location.lastPathComponent), to: 60)
                call(task, .delegate, t, ["urlSession(_:downloadTask:didFinishDownloadingTo:) " + name, "didFinishDownloadingTo", "file"])
            case .didResumeAtOffset(let offset, _):
                let at = ByteCountText.format(offset)
                call(task, .delegate, t, ["urlSession(_:downloadTask:didResumeAtOffset:expectedTotalBytes:) " + at,
                                          "didResumeAtOffset " + at, "at " + at])
            case .didFinishCollectingMetrics(let m):
                call(task, .delegate, t, ["urlSession(_:task:didFinishCollecting:) " + MetricsText.summary(m),
                                          "didFinishCollecting metrics", "metrics"])
            case .didCompleteWithError(let error):
                waiting = nil
                if let error {
                    let code = error.code.rawValue
                    reply(task, .delegate, t, ["urlSession(_:task:didCompleteWithError:) \(code): " + SequenceText.clip(Sanitized.text(error.message), to: 120),
                                               "didCompleteWithError " + code, code])
                } else {
                    reply(task, .delegate, t, ["urlSession(_:task:didCompleteWithError:) nil", "didCompleteWithError nil", "done"])
                }
            }
        }
        if let waiting, !flow.hasEnded, let last = flow.events.last {
            out.append(SequenceStep(.pending, from: .delegate, to: task, at: last.lastTime,
                                    labels: ["awaiting the delegate's \(waiting)", "awaiting \(waiting)", "awaiting"]))
        }
        return out
    }
}

/// The words of the steps: requests, responses, runs of chunks.
enum SequenceText {
    /// At most `limit` characters (a data: URL can be megabytes long).
    static func clip(_ text: String, to limit: Int) -> String {
        guard text.unicodeScalars.count > limit else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.prefix(limit - 1))) + "…"
    }

    static func request(_ method: String, _ url: String) -> [String] {
        let safe = clip(Sanitized.text(withoutCredentials(url)), to: 160)
        let path = pathAndQuery(of: url).map { clip(Sanitized.text($0), to: 80) }
        return ["\(method) " + safe] + (path.map { ["\(method) " + $0] } ?? []) + [method]
    }

    static func response(_ r: Response) -> [String] {
        let status = r.statusCode.map(statusLine) ?? "response"
        let code = r.statusCode.map(String.init) ?? "response"
        let part = r.part.map { "part \($0): " } ?? ""
        let length = r.expectedContentLength >= 0 ? ByteCountText.format(r.expectedContentLength) : nil
        let type = r.mimeType.map { clip(Sanitized.text($0), to: 40) }
        let long = part + ([status] + [type, length].compactMap { $0 }).joined(separator: ", ")
        let medium = part + ([code] + [length].compactMap { $0 }).joined(separator: ", ")
        return [long, medium, part.isEmpty ? code : "part \(r.part ?? 0)"]
    }

    /// "404 Not Found"; the number alone for a status without a standard phrase.
    static func statusLine(_ code: Int) -> String {
        let reason = HTTPStatusText.reason(code)
        return reason.isEmpty ? String(code) : "\(code) \(reason)"
    }

    static func redirect(_ r: Response, to target: URL) -> [String] {
        let code = r.statusCode.map(String.init) ?? "-"
        let status = r.statusCode.map(statusLine) ?? "-"
        let url = withoutCredentials(target.absoluteString)
        let path = pathAndQuery(of: url) ?? url
        return ["\(status), Location " + clip(Sanitized.text(url), to: 160),
                "\(code) → " + clip(Sanitized.text(path), to: 80), code]
    }

    /// The method of the request a followed redirect sends (the engine's rule: 303 makes every method but HEAD a
    /// GET, 301 and 302 make a POST a GET).
    static func method(after status: Int?, from method: String) -> String {
        let m = method.uppercased()
        if (status == 303 && m != "HEAD") || ((status == 301 || status == 302) && m == "POST") { return "GET" }
        return method
    }

    /// "/path?query" of a hierarchical URL; nil for data: and the like.
    static func pathAndQuery(of url: String) -> String? {
        guard let rest = afterScheme(url) else { return nil }
        guard let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) else { return "/" }
        let path = rest[slash...]
        return path.first == "?" ? "/" + path : String(path)
    }

    /// The URL without a user name or password (they would be shown, and written into files people share).
    static func withoutCredentials(_ url: String) -> String {
        guard let rest = afterScheme(url) else { return url }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@") else { return url }
        let scheme = url[..<rest.startIndex]
        return String(scheme) + String(rest[rest.index(after: at)...])
    }

    /// What follows "scheme://", or nil for a URL without an authority.
    private static func afterScheme(_ url: String) -> Substring? {
        guard let colon = url.firstIndex(of: ":") else { return nil }
        let rest = url[url.index(after: colon)...]
        return rest.hasPrefix("//") ? rest.dropFirst(2) : nil
    }

    /// A folded run of chunks: "412 chunks, 6.4 MiB in 3.20 s".
    static func run(_ e: FlowEvent) -> (long: String, short: String, chunks: String) {
        let size = ByteCountText.format(e.bytes)
        let over = e.lastTime > e.time ? " in " + MetricsText.duration(Double(e.lastTime - e.time) / 1e9) : ""
        return (size + over, size, "\(e.count) chunk\(e.count == 1 ? "" : "s"), " + size)
    }
}
