// One line of a task's delegate timeline; runs of the same progress call are folded into one line.
import SluiceEngine

public struct TimelineEntry: Equatable, Sendable, Codable {
    public let name: String
    /// What the call carried, already readable: "200", "allow", "task 4".
    public var detail: String
    /// How many calls this line stands for (more than one for folded progress calls).
    public var count: Int
    /// Bytes the folded calls carried.
    public var bytes: Int64
    public let time: UInt64

    public init(name: String, detail: String = "", count: Int = 1, bytes: Int64 = 0, time: UInt64) {
        self.name = name
        self.detail = detail
        self.count = count
        self.bytes = bytes
        self.time = time
    }

    /// "didReceiveData x412 (6.4 MiB)", "didReceiveResponse 200", "didCompleteWithError nil".
    public var text: String {
        var utf8: [UInt8] = []
        append(utf8: &utf8)
        return String(decoding: utf8, as: UTF8.self)
    }

    /// The same text as UTF-8 onto the end of `out`: a store record writes every line of a timeline into one
    /// buffer (appending to a string cost some 360 instructions a piece).
    public func append(utf8 out: inout [UInt8]) {
        out.append(contentsOf: name.utf8)
        if count > 1 {
            out.append(contentsOf: " x".utf8)
            out.append(contentsOf: String(count).utf8)
        }
        if bytes > 0, count > 1 || detail.isEmpty {
            out.append(contentsOf: " (".utf8)
            out.append(contentsOf: ByteCountText.format(bytes).utf8)
            out.append(UInt8(ascii: ")"))
        }
        if !detail.isEmpty {
            out.append(UInt8(ascii: " "))
            out.append(contentsOf: detail.utf8)
        }
    }

    /// The entry an event makes, or nil for events the timeline does not show (state changes are in the row).
    static func make(_ event: TaskEvent, time: UInt64) -> TimelineEntry? {
        func entry(_ detail: String, bytes: Int64 = 0) -> TimelineEntry {
            TimelineEntry(name: event.name, detail: detail, count: 1, bytes: bytes, time: time)
        }
        switch event {
        case .stateChanged: return nil
        case .didReceiveResponse(let r):
            var d = r.statusCode.map(String.init) ?? "-"
            if let part = r.part { d += " part \(part)" }
            return entry(d)
        case .disposition(let d): return entry(d.rawValue)
        case .didReceiveData(let bytes): return entry("", bytes: Int64(bytes))
        case .didWriteData(let bytes, _, _), .didSendBodyData(let bytes, _, _): return entry("", bytes: bytes)
        case .didCompleteWithError(let error): return entry(error.map { $0.code.rawValue } ?? "nil")
        case .didBecomeDownloadTask(let id): return entry("task \(id)")
        case .didFinishDownloadingTo: return entry("")
        case .didResumeAtOffset(let offset, _): return entry("at \(ByteCountText.format(offset))")
        case .willPerformHTTPRedirection(let r, let url):
            return entry("\(r.statusCode.map(String.init) ?? "-") to \(Sanitized.text(url.absoluteString))")
        case .redirectAnswer(let url): return entry(url.map { "follow \(Sanitized.text($0.absoluteString))" } ?? "refuse")
        case .didFinishCollectingMetrics(let metrics): return entry(MetricsText.summary(metrics))
        case .didReceiveChallenge(let space, let failures):
            let realm = space.realm.map { " realm \(Sanitized.text($0))" } ?? ""
            return entry("\(space.isProxy ? "proxy " : "")\(space.authenticationMethod.rawValue)\(realm)"
                         + (failures > 0 ? ", \(failures) refused" : ""))
        case .challengeAnswer(let disposition): return entry(disposition)
        case .didReceiveInformationalResponse(let r): return entry(r.statusCode.map(String.init) ?? "-")
        case .needNewBodyStream: return entry("")
        case .mirrorDropped(let url, let reason):
            return entry(Sanitized.text(url.absoluteString) + ": " + Sanitized.text(reason))
        }
    }

    /// Folds `next` into this entry when both are the same progress call.
    mutating func absorb(_ next: TimelineEntry) -> Bool {
        guard next.name == name, Self.folding.contains(name) else { return false }
        count += next.count
        bytes += next.bytes
        return true
    }

    static let folding: Set<String> = ["didReceiveData", "didWriteData", "didSendBodyData"]
}
