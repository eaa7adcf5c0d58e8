// What each task did, as the engine's events in order (runs of progress calls folded): what the sequence view,
// the Mermaid writer and the HAR writer read. A pure value, fed the same events as the model.
import SluiceEngine

/// One event of a task's flow; a folded run of progress calls is one `FlowEvent` with its count and bytes.
public struct FlowEvent: Equatable, Sendable {
    /// The first event of the run (for a folded run, its payload is the first call's)...
    public let event: TaskEvent
    /// ...and the last (the totals a folded run of didWriteData reached).
    public private(set) var lastEvent: TaskEvent
    public let time: UInt64
    /// The last call of a folded run (`time` for a single event).
    public var lastTime: UInt64
    public var count: Int
    /// Bytes the folded calls carried (received, written or sent).
    public var bytes: Int64

    public init(_ event: TaskEvent, at time: UInt64) {
        self.event = event
        lastEvent = event
        self.time = time
        lastTime = time
        count = 1
        switch event {
        case .didReceiveData(let n): bytes = Int64(n)
        case .didWriteData(let n, _, _), .didSendBodyData(let n, _, _): bytes = n
        default: bytes = 0
        }
    }

    /// Folds `next` in when both are the same progress call; a suspension or anything else breaks the run.
    mutating func absorb(_ next: FlowEvent) -> Bool {
        switch (event, next.event) {
        case (.didReceiveData, .didReceiveData), (.didWriteData, .didWriteData), (.didSendBodyData, .didSendBodyData):
            count += next.count
            bytes += next.bytes
            lastTime = next.lastTime
            lastEvent = next.lastEvent
            return true
        default:
            return false
        }
    }
}

/// One task's flow: what was asked (URL, method, the headers the task set) and what happened.
public struct TaskFlow: Equatable, Sendable {
    public let id: Int
    /// The requested URL; empty until known (a task the recorder was not told about learns it from its events).
    public var url: String
    public var method: String
    public var kind: TaskKind
    public var requestHeaders: [HeaderLine]
    public let added: UInt64
    public private(set) var events: [FlowEvent] = []
    /// Events dropped from the middle of a very long flow (an endless multipart stream): the first
    /// `FlowLog.keptHead` and the latest are kept.
    public private(set) var dropped = 0
    /// Where they were dropped: the index in `events` of the first event after the gap.
    public private(set) var gapIndex: Int?
    /// The download task this data task became, and the data task a download came from.
    public var becameTask: Int?
    public var cameFromTask: Int?

    public init(id: Int, url: String, method: String = "GET", kind: TaskKind, requestHeaders: [HeaderLine] = [], at time: UInt64) {
        self.id = id
        self.url = url
        self.method = method
        self.kind = kind
        self.requestHeaders = requestHeaders
        added = time
    }

    /// The task has made its last call (or handed its transfer to a download task).
    public var hasEnded: Bool {
        events.contains {
            if case .didCompleteWithError = $0.event { return true }
            if case .didBecomeDownloadTask = $0.event { return true }
            return false
        }
    }

    /// Nobody said what the task is: its events tell (a download writes, an upload sends).
    var isInferred = false

    mutating func append(_ event: FlowEvent) {
        if let last = events.indices.last, events[last].absorb(event) { return }
        if url.isEmpty, let learned = Self.url(in: event.event) { url = learned }
        if isInferred {
            switch event.event {
            case .didWriteData, .didFinishDownloadingTo, .didResumeAtOffset: kind = .download
            case .didSendBodyData: kind = .upload
            default: break
            }
        }
        events.append(event)
        if events.count > FlowLog.eventLimit {
            events.remove(at: FlowLog.keptHead)
            dropped += 1
            gapIndex = FlowLog.keptHead
        }
    }

    /// The request's URL as the first event that carries one tells it (for tasks nobody announced).
    private static func url(in event: TaskEvent) -> String? {
        switch event {
        case .willPerformHTTPRedirection(let r, _), .didReceiveResponse(let r): r.url.absoluteString
        case .didFinishCollectingMetrics(let m): m.transactions.first?.url.absoluteString
        case .didCompleteWithError(let e): e?.failingURL?.absoluteString
        default: nil
        }
    }
}

/// Every task's flow, by identifier, in the order the tasks were first seen.
public struct FlowLog: Equatable, Sendable {
    public private(set) var flows: [Int: TaskFlow] = [:]
    public private(set) var order: [Int] = []
    /// A flow keeps at most this many events: the first `keptHead`, then the latest.
    public static let eventLimit = 2000
    public static let keptHead = 200

    public init() {}

    public subscript(id: Int) -> TaskFlow? { flows[id] }

    /// Announces a task before its events (its URL, method and headers are not in the event stream).
    public mutating func add(_ flow: TaskFlow) {
        if flows[flow.id] == nil { order.append(flow.id) }
        flows[flow.id] = flow
    }

    public mutating func record(_ record: TaskEventRecord) {
        let id = record.taskIdentifier
        if flows[id] == nil {
            var unknown = TaskFlow(id: id, url: "", kind: .data, at: record.uptimeNanoseconds)
            unknown.isInferred = true
            add(unknown)
        }
        flows[id]?.append(FlowEvent(record.event, at: record.uptimeNanoseconds))
        if case .didBecomeDownloadTask(let next) = record.event {
            flows[id]?.becameTask = next
            let from = flows[id]
            if flows[next] == nil {
                add(TaskFlow(id: next, url: from?.url ?? "", method: from?.method ?? "GET", kind: .download,
                             requestHeaders: from?.requestHeaders ?? [], at: record.uptimeNanoseconds))
            }
            flows[next]?.cameFromTask = id
        }
    }

    /// The same events the model folds: tasks the app added and the engine's events.
    public mutating func apply(_ event: ModelEvent) {
        switch event {
        case .added(let id, let url, let kind, let headers, let time, _):
            add(TaskFlow(id: id, url: url, method: kind == .upload ? "POST" : "GET", kind: kind, requestHeaders: headers, at: time))
        case .engine(let event):
            record(event)
        case .restored(let row) where !row.isFinished:
            add(TaskFlow(id: row.id, url: row.url, method: "GET", kind: row.kind, requestHeaders: row.requestHeaders, at: row.added))
        case .saved, .note, .tick, .queueOrder, .restored, .retrying, .sessionRateLimit, .taskRateLimit, .segments, .refreshed, .renamed:
            break
        }
    }

    public mutating func forget(_ id: Int) {
        guard flows.removeValue(forKey: id) != nil else { return }
        order.removeAll { $0 == id }
    }

    /// The transfer `id` belongs to, from its first task to the last: a data task and the download task it
    /// became are one request, one flow.
    public func chain(containing id: Int) -> [TaskFlow] {
        guard var first = flows[id] else { return [] }
        var seen: Set<Int> = [first.id]
        while let previous = first.cameFromTask.flatMap({ flows[$0] }), seen.insert(previous.id).inserted { first = previous }
        var chain = [first]
        while let nextID = chain[chain.count - 1].becameTask, let next = flows[nextID], !chain.contains(where: { $0.id == nextID }) {
            chain.append(next)
        }
        return chain
    }

    /// Every transfer once, in the order its first task was seen.
    public var chains: [[TaskFlow]] {
        order.compactMap { id in flows[id]?.cameFromTask == nil ? chain(containing: id) : nil }
    }
}
