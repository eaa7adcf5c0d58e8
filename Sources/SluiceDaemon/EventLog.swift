// The daemon's numbered record of what happened, kept for a while so that a client can replay from a position
// (`GET /events?from=N`). Events are kept as values and turned into JSON lines only when someone reads them.
import SluiceEngine
import SluiceViewModel

struct EventLog {
    /// How many events are kept; older ones are dropped (a client asking for them starts at the oldest kept).
    static let capacity = 20_000

    private(set) var events: [(seq: Int, event: ModelEvent)] = []
    /// The sequence number the next event gets; numbers start at 1.
    private(set) var next = 1

    mutating func append(_ event: ModelEvent) {
        if case .tick = event { return }
        events.append((next, event))
        next += 1
        // Dropping half at a time keeps appends amortised O(1).
        if events.count >= 2 * Self.capacity { events.removeFirst(events.count - Self.capacity) }
    }

    /// The kept events numbered `from` or later.
    func since(_ from: Int) -> ArraySlice<(seq: Int, event: ModelEvent)> {
        guard let first = events.first else { return [] }
        let start = max(0, from - first.seq)
        return start >= events.count ? [] : events[start...]
    }
}

/// One event as a JSON line: engine events in the shape of `sluice get --trace` (through `traceLine`) with the
/// sequence number and row id in front; the app's own events (a row added, restored, saved...) in the same style.
struct EventLineEncoder: Sendable {
    /// `TraceEncoder.line` of the command-line module: the same text as `--trace` prints.
    let traceLine: @Sendable (TaskEventRecord, UInt64) -> String
    /// Uptime (ns) that `t` counts from: the daemon's start.
    let start: UInt64

    func line(seq: Int, _ event: ModelEvent) -> String? {
        let head = "{\"seq\":\(seq),"
        switch event {
        case .engine(let record):
            let trace = traceLine(record, start)
            guard trace.hasPrefix("{") else { return nil }
            return head + "\"row\":\(record.taskIdentifier)," + trace.dropFirst()
        case .added(let id, let url, let kind, _, let at, let note):
            return head + fields(id, "added", at: at, [("url", JSONText.quote(url)), ("kind", JSONText.quote(kind.rawValue))]
                                 + (note.map { [("note", JSONText.quote($0))] } ?? []))
        case .restored(let row):
            return head + fields(row.id, "restored", at: row.added, [("url", JSONText.quote(row.url)), ("kind", JSONText.quote(row.kind.rawValue)),
                                                                     ("state", JSONText.quote(row.stateWord))])
        case .saved(let id, let path):
            return head + fields(id, "saved", at: nil, [("path", JSONText.quote(path))])
        case .note(let id, let text):
            return head + fields(id, "note", at: nil, [("text", JSONText.quote(text))])
        case .retrying(let id, let attempt, let of, let at, let reason):
            let wait = at > start ? at - start : 0
            return head + fields(id, "retrying", at: nil, [("attempt", String(attempt)), ("of", String(of)),
                                                           ("at", seconds(wait)), ("reason", JSONText.quote(reason))])
        case .queueOrder(let ids):
            return head + "\"event\":\"queueOrder\",\"rows\":[" + ids.map(String.init).joined(separator: ",") + "]}"
        case .sessionRateLimit(let limit):
            return head + "\"event\":\"sessionRateLimit\",\"bytesPerSecond\":\(limit.map(String.init) ?? "null")}"
        case .taskRateLimit(let id, let limit):
            return head + fields(id, "taskRateLimit", at: nil, [("bytesPerSecond", limit.map(String.init) ?? "null")])
        case .refreshed(let id, let url, _):
            return head + fields(id, "refreshed", at: nil, [("url", JSONText.quote(url))])
        case .renamed(let id, let target, _):
            return head + fields(id, "renamed", at: nil, [("target", JSONText.quote(target))])
        case .tick, .segments:
            return nil
        }
    }

    private func fields(_ id: Int, _ name: String, at: UInt64?, _ more: [(String, String)]) -> String {
        var all: [(String, String)] = [("row", String(id))]
        if let at { all.append(("t", seconds(at > start ? at - start : 0))) }
        all.append(("event", JSONText.quote(name)))
        all += more
        return all.map { JSONText.quote($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }

    private func seconds(_ nanoseconds: UInt64) -> String {
        let micros = nanoseconds / 1000
        let fraction = String(micros % 1_000_000)
        return "\(micros / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
    }
}
