// One task as the store keeps it: its request, where its bytes go, how far it got and how it ended.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

public struct StoredTask: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case data, download
    }

    public enum State: String, Sendable, CaseIterable {
        case queued, running, suspended, completed, failed, cancelled

        /// Whether the task has ended for good (a later run does not start it again).
        public var isFinished: Bool { self == .completed || self == .failed || self == .cancelled }
    }

    /// The store's own id, stable across runs; 0 until `TaskStore.insert` assigns one.
    public var id: Int64
    public var url: String
    public var method: String
    /// Name/value pairs in the order they are sent.
    public var requestHeaders: [StoredHeader]
    public var kind: Kind
    public var state: State
    /// Lower runs first within the queue; ties go by id.
    public var priority: Int
    /// The final file path of a download.
    public var destination: String?
    public var partialPath: String?
    public var bytesReceived: Int64
    public var bytesExpected: Int64?
    public var etag: String?
    public var lastModified: String?
    /// The engine's ResumeData bytes, as they are.
    public var resumeData: Data?
    /// Seconds since 1970.
    public var createdAt: Double
    public var startedAt: Double?
    public var endedAt: Double?
    public var statusCode: Int?
    /// Short text: "saved", "404 Not Found", "cancelled"...
    public var outcome: String?
    /// The file the task saved: its destination once the outcome is "saved"; nil for one that saved none (the
    /// destination of a failed download is where it was to go).
    public var savedFile: String? { outcome == "saved" ? destination : nil }
    public var error: String?
    public var attempts: Int
    /// A summary of the delegate timeline, one line per event.
    public var timeline: String

    public init(
        id: Int64 = 0, url: String, method: String = "GET", requestHeaders: [StoredHeader] = [],
        kind: Kind = .data, state: State = .queued, priority: Int = 0, destination: String? = nil,
        partialPath: String? = nil, bytesReceived: Int64 = 0, bytesExpected: Int64? = nil, etag: String? = nil,
        lastModified: String? = nil, resumeData: Data? = nil, createdAt: Double, startedAt: Double? = nil,
        endedAt: Double? = nil, statusCode: Int? = nil, outcome: String? = nil, error: String? = nil,
        attempts: Int = 0, timeline: String = ""
    ) {
        self.id = id
        self.url = url
        self.method = method
        self.requestHeaders = requestHeaders
        self.kind = kind
        self.state = state
        self.priority = priority
        self.destination = destination
        self.partialPath = partialPath
        self.bytesReceived = bytesReceived
        self.bytesExpected = bytesExpected
        self.etag = etag
        self.lastModified = lastModified
        self.resumeData = resumeData
        self.createdAt = createdAt
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.statusCode = statusCode
        self.outcome = outcome
        self.error = error
        self.attempts = attempts
        self.timeline = timeline
    }

    /// The task ended for good (`state` is a finished one) at `time` unless it had an end already: nothing is left to
    /// continue, and a completed one's partial file is gone.
    public mutating func end(_ state: State, outcome: String, at time: Double) {
        self.state = state
        self.outcome = outcome
        resumeData = nil
        if state == .completed { partialPath = nil }
        if endedAt == nil { endedAt = time }
    }
}
