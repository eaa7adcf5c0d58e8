// One task as the UI shows it: plain values, no engine objects.
import SluiceEngine

public enum TaskKind: String, Sendable, Codable {
    case data, download, upload
}

public enum TaskOutcome: Equatable, Sendable, Codable {
    case finished
    case failed(TaskFailure)
    case cancelled
}

public struct TaskRow: Equatable, Sendable, Codable {
    public let id: Int
    public var url: String
    /// What the row is called (see `TaskName`): the URL's last segment, then the server's file name once the
    /// response has come.
    public var name: String
    /// The requested URL's host (and port), for telling tasks on several servers apart.
    public let host: String?
    /// Where the task's followed redirects led (nil while it has followed none).
    public var redirectedTo: String?
    /// Timings and connections, once the task has finished collecting them.
    public var metrics: TaskMetrics?
    public var kind: TaskKind
    public var state: TaskState = .suspended
    /// False until the task first runs: a suspended task that never ran is waiting for its turn (queued).
    public var hasStarted = false
    public var outcome: TaskOutcome?
    /// Stopped with its partial file and resume data kept (a quit, a signal): it goes on when sluice starts again.
    public var keptForResume = false
    /// Body bytes received (for a download: bytes in its file).
    public var bytes: Int64 = 0
    /// -1 while unknown.
    public var expected: Int64 = -1
    public var sent: Int64 = 0
    public var chunks = 0
    public var status: Int?
    public var contentType: String?
    public var requestHeaders: [HeaderLine] = []
    public var responseHeaders: [HeaderLine] = []
    public var parts = 0
    /// The response has arrived and the delegate has not answered yet.
    public var awaitingDisposition = false
    public var timeline: [TimelineEntry] = []
    public var rate = RateWindow()
    /// Bytes per second over the last minute, for the sparkline.
    public var throughput = Throughput()
    public var lastProgress: UInt64
    /// Nanoseconds between its last two data events while it ran: bytes that come in bursts (a low receive limit
    /// lets 16 KiB in every 16 s at 1 KiB/s) are not a stall between them. Optional so that rows encoded without it
    /// (a daemon of the version before, to an attached UI) still decode.
    public var progressGap: UInt64?
    public let added: UInt64
    /// Set on a data task that became a download task, and on that download task.
    public var becameTask: Int?
    public var cameFromTask: Int?
    /// Where a finished download was saved.
    public var savedPath: String?
    /// Set while the task waits to be tried again after a failure.
    public var retry: RetryWait?
    /// A split download's ranges, as last sampled (empty on one connection).
    public var segments: [DownloadSegment] = []
    /// Its own receive limit, in bytes per second, when it has one.
    public var rateLimit: Int64?
    /// Its place in the queue (1 starts next) while it waits its turn, once the user has reordered the queue.
    public var queuePosition: Int?
    /// A note for the user about this row (a save that failed, the bytes a conversion could not keep).
    public var note: String?

    public init(id: Int, url: String, kind: TaskKind, requestHeaders: [HeaderLine] = [], at time: UInt64) {
        self.id = id
        self.url = url
        (name, host) = TaskName.nameAndHost(of: url)
        self.kind = kind
        self.requestHeaders = requestHeaders
        added = time
        lastProgress = time
    }

    public var isFinished: Bool { state == .completed }

    /// The server answered 400 or above: the engine calls that a success, a user does not.
    public var httpFailure: Int? {
        guard outcome == .finished, becameTask == nil, let status, status >= 400 else { return nil }
        return status
    }

    /// One word for the state column: queued, running, suspended, awaiting, canceling, finished, failed,
    /// cancelled, stopped (kept to go on later) or converted.
    public var stateWord: String {
        if awaitingDisposition { return "awaiting" }
        switch state {
        case .running: return "running"
        case .suspended: return retry != nil ? "retrying" : isHeldByUser ? "suspended" : "queued"
        case .canceling: return "canceling"
        case .completed:
            if becameTask != nil { return "converted" }
            switch outcome {
            case .failed: return "failed"
            case .cancelled: return keptForResume ? "stopped" : "cancelled"
            // A data task's error page came whole (the row says which status); a download of one saved nothing.
            case .finished, nil: return kind == .download && httpFailure != nil ? "failed" : "finished"
            }
        }
    }

    public var isFailed: Bool {
        if case .failed = outcome { return true }
        return httpFailure != nil
    }

    /// Why the task failed, in a few words, longest first (the UI shows the first that fits); nil when it has not.
    public var failureWords: [String]? {
        if case .failed(let failure) = outcome {
            // The server's error status is the reason (a refused resume), more than "bad response".
            if failure.code == .badServerResponse, let status, status >= 400 { return ["the server answered \(status)", "HTTP \(status)"] }
            return failure.words
        }
        return httpFailure.map { ["HTTP \($0)"] }
    }

    /// 0...1 when the length is known, else nil (shown as an indeterminate bar, never as 0 %).
    public var fraction: Double? {
        guard expected > 0 else { return expected == 0 && isFinished ? 1 : nil }
        return min(1, Double(bytes) / Double(expected))
    }

    public func bytesPerSecond(now: UInt64) -> Double? {
        guard state == .running, !awaitingDisposition else { return nil }
        return rate.rate(now: now)
    }

    /// A progress call brought the row to `total` bytes: the gap since the last one (see `progressGap`), the
    /// chunk count and the rate follow.
    mutating func progressed(to total: Int64, at time: UInt64) {
        bytes = total
        if chunks > 0 { progressGap = time &- lastProgress }
        chunks += 1
        lastProgress = time
        rate.record(bytes: total, at: time)
    }

    /// Seconds left at the current rate; nil when unknown.
    public func eta(now: UInt64) -> Double? { secondsLeft(at: bytesPerSecond(now: now)) }

    /// Seconds left at `rate` (a rate already asked for); nil when unknown.
    public func secondsLeft(at rate: Double?) -> Double? {
        guard expected > 0, let r = rate, r > 1 else { return nil }
        return Double(max(0, expected - bytes)) / r
    }

    /// Suspended by the user (not waiting for its turn or its retry): it goes on when they say.
    public var isHeldByUser: Bool { state == .suspended && hasStarted && retry == nil }

    /// Running, not waiting for anyone, and no byte for a while.
    public func isStalled(now: UInt64) -> Bool {
        let quiet = max(TaskRow.stallAfter, min(2 &* (progressGap ?? 0), TaskRow.longestBurstWait))
        return state == .running && !awaitingDisposition && now &- lastProgress > quiet
    }

    /// However far apart its bursts came, a row quiet this long is stalled.
    static let longestBurstWait: UInt64 = 60_000_000_000

    public static let stallAfter: UInt64 = 5_000_000_000
}

/// A failed attempt's wait before the next: what `retrying in 4 s (2/5)` says.
public struct RetryWait: Equatable, Sendable, Codable {
    public let attempt: Int
    public let of: Int
    /// When the next attempt starts (uptime nanoseconds).
    public let at: UInt64
    public let reason: String

    public init(attempt: Int, of: Int, at: UInt64, reason: String) {
        self.attempt = attempt
        self.of = of
        self.at = at
        self.reason = reason
    }

    /// "retrying in 4 s (2/5)", then "queued to retry (2/5)" until a slot is free.
    public func text(now: UInt64) -> String {
        let seconds = at > now ? Int(((Double(at - now) / 1e9)).rounded(.up)) : 0
        return (seconds > 0 ? "retrying in \(WaitText.of(Double(seconds)))" : "queued to retry") + " (\(attempt)/\(of))"
    }
}

public struct HeaderLine: Equatable, Sendable, Codable {
    public let name: String
    public let value: String
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}
