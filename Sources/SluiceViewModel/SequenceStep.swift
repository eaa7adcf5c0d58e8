// The parts of a sequence diagram before it is drawn: lifelines and steps (arrows and notes), shared by the
// terminal's sequence view and the Mermaid writer so that both show the same flow.

/// A vertical line of the diagram: the delegate, one task (a conversion adds the download task), the server.
public enum Lifeline: Hashable, Sendable {
    case delegate
    case task(Int)
    case server
}

public struct LifelineInfo: Equatable, Sendable {
    public let lifeline: Lifeline
    /// Names for the terminal, longest first: "data task 5", "task 5", "#5".
    public let names: [String]
    /// The name the seed's diagrams use: "URLSessionDelegate", "URLSessionDataTask 5", "Server".
    public let seedName: String
    /// The step where a task's lifeline starts (a download task made by a conversion starts part way down), and
    /// the one where it ends once the task has made its last call; nil for the delegate and the server.
    public var firstStep: Int?
    public var lastStep: Int?

    public init(_ lifeline: Lifeline, names: [String], seedName: String, firstStep: Int? = nil, lastStep: Int? = nil) {
        self.lifeline = lifeline
        self.names = names
        self.seedName = seedName
        self.firstStep = firstStep
        self.lastStep = lastStep
    }

    /// Whether the lifeline is drawn on the row of step `index`.
    public func isActive(at index: Int) -> Bool {
        if let first = firstStep, index < first { return false }
        if let last = lastStep, index > last { return false }
        return true
    }
}

public struct SequenceStep: Equatable, Sendable {
    public enum Shape: Equatable, Sendable {
        /// A call (a request, a delegate method) and an answer (a response, a completion handler).
        case call, reply
        /// A folded run of body bytes, from `from` to `to`, passing through `via` (the server's bytes reach the
        /// delegate through the task).
        case data(via: Lifeline?)
        /// Something that happened on one lifeline (`from`): suspend(), resume(), cancel().
        case note
        /// An answer not given yet (the response waits for its disposition).
        case pending
        /// Calls left out of a very long flow.
        case gap
    }

    public let shape: Shape
    public let from: Lifeline
    public let to: Lifeline
    /// When it happened (the first call of a folded run), on the uptime clock.
    public let time: UInt64
    /// What the arrow says, longest first; already safe to print (server text sanitized).
    public let labels: [String]
    /// For a data step: what the bytes' first hop says (server to task) where a diagram draws both hops.
    public let firstHop: String?
    /// The lifeline this step brings in (a conversion's download task).
    public let creates: Lifeline?
    /// The words name a URL: where the longer forms do not fit, the middle one is cut rather than the URL dropped.
    public let namesURL: Bool

    public init(_ shape: Shape, from: Lifeline, to: Lifeline, at time: UInt64, labels: [String], firstHop: String? = nil,
                creates: Lifeline? = nil, namesURL: Bool = false) {
        self.shape = shape
        self.from = from
        self.to = to
        self.time = time
        self.labels = labels
        self.firstHop = firstHop
        self.creates = creates
        self.namesURL = namesURL
    }
}
