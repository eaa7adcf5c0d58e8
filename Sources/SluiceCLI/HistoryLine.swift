// One stored task as `sluice history` prints it: an aligned line for people, or a JSON object for programs.
// Every text that came from a server or a user is escaped; credentials and cookies are redacted.
#if canImport(Glibc)
import Glibc
#endif
import SluiceEngine
import SluiceStore
import SluiceViewModel

enum HistoryLine {
    /// Aligned columns: id, when, outcome, size, URL, where saved.
    static func table(_ tasks: [StoredTask]) -> [String] {
        let cells = tasks.map { task in
            (id: String(task.id), when: localTime(when(task)), outcome: Sanitized.text(outcome(task)), size: size(task),
             url: Sanitized.text(Redacted.url(task.url)), saved: task.savedFile.map(Sanitized.text) ?? "-")
        }
        let idWidth = cells.map(\.id.count).max() ?? 0
        let outcomeWidth = min(cells.map(\.outcome.count).max() ?? 0, 24)
        let sizeWidth = cells.map(\.size.count).max() ?? 0
        return cells.map { cell in
            [
                pad(cell.id, to: idWidth, left: true), cell.when, pad(cell.outcome, to: outcomeWidth),
                pad(cell.size, to: sizeWidth, left: true), cell.url, cell.saved,
            ].joined(separator: "  ")
        }
    }

    /// One object on one line, keys in a fixed order; absent values are null, times ISO 8601 in UTC.
    static func json(_ task: StoredTask) -> String {
        let headers = task.requestHeaders.map { header in
            "{\"name\":" + JSONText.quote(header.name) + ",\"value\":" + JSONText.quote(header.displayValue) + "}"
        }
        let fields: [(String, String)] = [
            ("id", String(task.id)),
            ("url", JSONText.quote(Redacted.url(task.url))),
            ("method", JSONText.quote(task.method)),
            ("kind", JSONText.quote(task.kind.rawValue)),
            ("state", JSONText.quote(task.state.rawValue)),
            ("outcome", JSONText.quote(outcome(task))),
            ("statusCode", task.statusCode.map(String.init) ?? "null"),
            ("error", text(task.error)),
            ("bytesReceived", String(task.bytesReceived)),
            ("bytesExpected", task.bytesExpected.map(String.init) ?? "null"),
            ("destination", text(task.destination)),
            ("partialPath", text(task.partialPath)),
            ("priority", String(task.priority)),
            ("attempts", String(task.attempts)),
            ("createdAt", time(task.createdAt)),
            ("startedAt", task.startedAt.map(time) ?? "null"),
            ("endedAt", task.endedAt.map(time) ?? "null"),
            ("etag", text(task.etag)),
            ("lastModified", text(task.lastModified)),
            ("resumable", task.resumeData == nil ? "false" : "true"),
            ("requestHeaders", "[" + headers.joined(separator: ",") + "]"),
            ("timeline", JSONText.quote(task.timeline)),
        ]
        return "{" + fields.map { JSONText.quote($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }

    /// What became of the task; a task that has not ended says its state. A download the store last saw running
    /// whose partial file no process writes now was stopped (a quit, a signal, a crash): "stopped", not "running".
    static func outcome(_ task: StoredTask) -> String {
        if let outcome = task.outcome { return outcome }
        if task.state == .running, task.kind == .download, let partial = task.partialPath, !PartialFileLock.isHeldElsewhere(partial) {
            return "stopped"
        }
        return task.state.rawValue
    }

    /// The moment worth showing: when it ended, else started, else was added.
    static func when(_ task: StoredTask) -> Double {
        task.endedAt ?? task.startedAt ?? task.createdAt
    }

    /// "12.4 MiB", or "1.2 MiB of 4.0 MiB" while incomplete.
    static func size(_ task: StoredTask) -> String {
        let received = ByteCountText.format(task.bytesReceived)
        guard let expected = task.bytesExpected, expected > task.bytesReceived else { return received }
        return received + " of " + ByteCountText.format(expected)
    }

    /// "2026-11-23 18:40" in the local time zone.
    static func localTime(_ seconds: Double) -> String { LocalTime.text(seconds) }

    private static func time(_ seconds: Double) -> String {
        JSONText.quote(WallClock.iso8601(unixNanoseconds: Int64((seconds * 1e9).rounded())))
    }

    private static func text(_ value: String?) -> String {
        value.map(JSONText.quote) ?? "null"
    }

    private static func pad(_ text: String, to width: Int, left: Bool = false) -> String {
        let gap = String(repeating: " ", count: max(0, width - text.count))
        return left ? gap + text : text + gap
    }
}
