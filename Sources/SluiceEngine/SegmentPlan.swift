// The ranges of a split download and what to do as bytes and ends arrive: a pure state machine, no sockets.

/// Each segment is a byte range `[start, end)` of the file with the next byte it expects. Every event returns
/// what the driver must do (fetch a range, stop a connection, finish, fail); the driver owns the connections and
/// the file. A finished connection takes the second half of the segment with the most bytes left (the slowest
/// one, since all started together), so no segment is left crawling alone at the end.
struct SegmentPlan: Equatable, Sendable {
    enum State: Equatable, Sendable { case pending, active, done }

    struct Segment: Equatable, Sendable {
        let id: Int
        let start: Int64
        /// Exclusive; lowered when another connection takes the rest.
        var end: Int64
        /// The next byte this segment expects.
        var next: Int64
        /// Where the request for this segment ends (exclusive): past `end` after a steal.
        var requestedEnd: Int64
        var state: State
        /// Where its request goes (while active) or last went: 0 is the download's own URL, 1... its mirrors.
        var source = 0
        /// The source its last request failed on, which its next request avoids while another one is left.
        var avoid: Int?
        var remaining: Int64 { end - next }
    }

    enum Action: Equatable, Sendable {
        /// Request bytes `first...last` (inclusive, as a Range header says) for segment `id`.
        case fetch(id: Int, first: Int64, last: Int64, source: Int = 0)
        /// Mirror `source` sends no more requests; the reason goes into the task's timeline.
        case drop(source: Int, reason: String)
        /// The segment has its bytes but its request asked for more: end its connection.
        case stop(id: Int)
        /// Every byte is on disk.
        case complete
        /// Give up: too many segments failed.
        case fail(String)
    }

    let total: Int64
    let connections: Int
    /// No segment is split below this size: a new connection costs a round trip.
    let minimumPiece: Int64
    /// Failed or cut-short requests tolerated before the whole download fails.
    let retryLimit: Int
    private(set) var segments: [Segment] = []
    private(set) var retries = 0
    private var nextID = 0
    /// How many URLs serve the file: the download's own (source 0, never dropped) and its mirrors.
    let sources: Int
    private(set) var droppedSources: Set<Int> = []

    /// `pending`: the ranges still to fetch, `[start, end)` each (the whole file for a fresh download).
    init(total: Int64, connections: Int, minimumPiece: Int64, pending: [(Int64, Int64)], retryLimit: Int = 5,
         sources: Int = 1) {
        self.total = total
        self.connections = max(1, connections)
        self.sources = max(1, sources)
        self.minimumPiece = max(1, minimumPiece)
        self.retryLimit = retryLimit
        for (start, end) in pending where start < end && start >= 0 && end <= total {
            segments.append(Segment(id: nextID, start: start, end: end, next: start, requestedEnd: end, state: .pending))
            nextID += 1
        }
    }

    // MARK: Queries

    var isComplete: Bool { segments.allSatisfy { $0.state == .done } }
    var activeCount: Int { segments.filter { $0.state == .active }.count }
    /// Bytes still to fetch, each range `[next, end)` in file order: what resume data keeps.
    var pendingRanges: [(Int64, Int64)] {
        segments.filter { $0.state != .done && $0.remaining > 0 }.sorted { $0.next < $1.next }.map { ($0.next, $0.end) }
    }
    var bytesDone: Int64 { total - pendingRanges.reduce(0) { $0 + ($1.1 - $1.0) } }
    /// The file's first bytes that are all on disk: a reader that knows nothing of segments may keep these.
    var contiguousPrefix: Int64 { pendingRanges.first?.0 ?? total }

    func segment(_ id: Int) -> Segment? { segments.first { $0.id == id } }

    // MARK: Events

    /// The first requests: pending ranges are divided until there is one per connection (none smaller than
    /// `minimumPiece`), then as many as allowed start.
    mutating func start() -> [Action] {
        divideForIdleConnections()
        if segments.isEmpty || isComplete { return [.complete] }
        return activatePending()
    }

    /// `count` bytes arrived for segment `id` at its next offset. Returns how many of them belong to it (bytes
    /// past a lowered end are another segment's, and the rest of a stopped or unknown segment's are nobody's),
    /// and what to do.
    mutating func received(_ id: Int, count: Int64) -> (keep: Int64, actions: [Action]) {
        guard let i = index(id), segments[i].state == .active else { return (0, []) }
        let keep = min(count, segments[i].remaining)
        segments[i].next += keep
        guard segments[i].remaining == 0 else { return (keep, []) }
        segments[i].state = .done
        var actions: [Action] = segments[i].requestedEnd > segments[i].end ? [.stop(id: id)] : []
        actions += refill()
        return (keep, actions)
    }

    /// Segment `id`'s request ended. Before its last byte that is a failure: the rest goes back to pending and
    /// is asked for again, up to `retryLimit` times over the whole download.
    mutating func ended(_ id: Int, failure: String?) -> [Action] {
        guard let i = index(id), segments[i].state == .active else { return [] }
        retries += 1
        if retries > retryLimit {
            return [.fail(failure ?? "the server ended a range early")]
        }
        segments[i].state = .pending
        segments[i].requestedEnd = segments[i].end
        segments[i].avoid = segments[i].source
        return refill()
    }

    /// Segment `id`'s source sent something other than its range of this file (an error status, another file,
    /// no answer at all): a mirror is dropped, and every range it was fetching goes back to the other sources
    /// (not counted as a retry: the ranges did nothing wrong). Source 0, the download's own URL, is not dropped:
    /// its failure counts as `ended` does.
    mutating func sourceFailed(_ id: Int, reason: String) -> [Action] {
        guard let i = index(id), segments[i].state == .active else { return [] }
        let source = segments[i].source
        guard source != 0 else { return ended(id, failure: reason) }
        droppedSources.insert(source)
        var actions: [Action] = [.drop(source: source, reason: reason)]
        for k in segments.indices where segments[k].state == .active && segments[k].source == source {
            actions.append(.stop(id: segments[k].id))
            segments[k].state = .pending
            segments[k].requestedEnd = segments[k].end
        }
        return actions + refill()
    }

    /// A connection answered with the whole body (the server ignored the range, or If-Range found the file
    /// changed): that connection becomes the only one, from byte 0 of a file `newTotal` long; the others stop.
    /// The driver empties the file before writing.
    mutating func wholeBodyArrived(_ id: Int, newTotal: Int64) -> (plan: SegmentPlan, actions: [Action]) {
        let others = segments.filter { $0.state == .active && $0.id != id }.map { Action.stop(id: $0.id) }
        var plan = SegmentPlan(total: newTotal, connections: 1, minimumPiece: minimumPiece, pending: [(0, newTotal)],
                               retryLimit: retryLimit, sources: sources)
        plan.droppedSources = droppedSources
        plan.nextID = nextID
        plan.segments = newTotal > 0 ? [Segment(id: id, start: 0, end: newTotal, next: 0, requestedEnd: newTotal, state: .active)] : []
        plan.retries = retries
        return (plan, others + (newTotal == 0 ? [.complete] : []))
    }

    // MARK: Private

    private func index(_ id: Int) -> Int? { segments.firstIndex { $0.id == id } }

    /// After a segment finished or failed: start a pending one, or take half of the largest active one.
    private mutating func refill() -> [Action] {
        if isComplete { return [.complete] }
        var actions = activatePending()
        while activeCount < connections, let victim = largestActive(), segments[victim].remaining >= 2 * minimumPiece {
            let cut = segments[victim].next + segments[victim].remaining / 2
            let tail = segments[victim].end
            segments[victim].end = cut
            let id = nextID
            nextID += 1
            let source = leastLoadedSource(avoiding: nil)
            segments.append(Segment(id: id, start: cut, end: tail, next: cut, requestedEnd: tail, state: .active,
                                    source: source))
            actions.append(.fetch(id: id, first: cut, last: tail - 1, source: source))
        }
        return actions
    }

    private mutating func activatePending() -> [Action] {
        var actions: [Action] = []
        for i in segments.indices where segments[i].state == .pending && activeCount < connections {
            segments[i].source = leastLoadedSource(avoiding: segments[i].avoid)
            segments[i].state = .active
            segments[i].requestedEnd = segments[i].end
            actions.append(.fetch(id: segments[i].id, first: segments[i].next, last: segments[i].end - 1,
                                  source: segments[i].source))
        }
        return actions
    }

    /// The live source with the fewest active requests, the lowest number first (so a fresh start goes round
    /// robin); `avoiding` is skipped while another live source is left.
    private func leastLoadedSource(avoiding: Int?) -> Int {
        let live = (0..<sources).filter { !droppedSources.contains($0) }
        let candidates = live.count > 1 ? live.filter { $0 != avoiding } : live
        let load = { (source: Int) in segments.filter { $0.state == .active && $0.source == source }.count }
        return candidates.min { (load($0), $0) < (load($1), $1) } ?? 0
    }

    private func largestActive() -> Int? {
        segments.indices.filter { segments[$0].state == .active }.max { segments[$0].remaining < segments[$1].remaining }
    }

    /// Splits the largest pending range into equal pieces while connections would otherwise stay idle.
    private mutating func divideForIdleConnections() {
        while true {
            let open = segments.filter { $0.state != .done }.count
            let idle = connections - open
            guard idle > 0, let i = segments.indices.filter({ segments[$0].state == .pending })
                .max(by: { segments[$0].remaining < segments[$1].remaining }) else { return }
            let pieces = Int(min(Int64(idle + 1), segments[i].remaining / minimumPiece))
            guard pieces >= 2 else { return }
            let start = segments[i].next, end = segments[i].end
            let size = (end - start) / Int64(pieces)
            segments[i].end = start + size
            segments[i].requestedEnd = segments[i].end
            for k in 1..<pieces {
                let from = start + Int64(k) * size
                let to = k == pieces - 1 ? end : from + size
                segments.append(Segment(id: nextID, start: from, end: to, next: from, requestedEnd: to, state: .pending))
                nextID += 1
            }
            segments.sort { $0.next < $1.next }
        }
    }
}
