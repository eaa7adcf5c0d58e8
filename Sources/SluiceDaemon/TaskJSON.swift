// A row as the daemon's API shows it: one JSON object with the facts `sluice ls` prints.
import SluiceStore
import SluiceViewModel

public enum TaskJSON {
    /// `{"id":3,"url":...,"state":"running",...}`; `now` (uptime ns) dates the rate.
    public static func object(_ row: TaskRow, now: UInt64) -> String {
        var fields: [(String, String)] = [
            ("id", String(row.id)),
            ("url", JSONText.quote(Redacted.url(row.url))),
            ("name", JSONText.quote(row.name)),
            ("kind", JSONText.quote(row.kind.rawValue)),
            ("state", JSONText.quote(row.stateWord)),
            ("bytes", String(row.bytes)),
            ("expected", String(row.expected)),
            ("rate", row.bytesPerSecond(now: now).map { String(Int64($0)) } ?? "null"),
            ("limit", row.rateLimit.map(String.init) ?? "null"),
            ("saved", row.savedPath.map(JSONText.quote) ?? "null"),
            ("outcome", outcome(row).map(JSONText.quote) ?? "null"),
            ("status", row.status.map(String.init) ?? "null"),
            ("error", row.failureWords.map { JSONText.quote($0[0]) } ?? "null"),
            ("note", row.note.map(JSONText.quote) ?? "null"),
        ]
        if let place = row.queuePosition { fields.append(("queuePosition", String(place))) }
        return object(fields)
    }

    /// nil while the task has not ended.
    static func outcome(_ row: TaskRow) -> String? {
        guard row.isFinished else { return nil }
        if row.becameTask != nil { return "converted" }
        switch row.outcome {
        case .failed: return "failed"
        case .cancelled: return "cancelled"
        case .finished, nil: return row.httpFailure == nil ? "finished" : "failed"
        }
    }

    public static func array(_ rows: [TaskRow], now: UInt64) -> String {
        "[" + rows.map { object($0, now: now) }.joined(separator: ",") + "]"
    }

    static func object(_ fields: [(String, String)]) -> String {
        "{" + fields.map { JSONText.quote($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }

    /// `{"error":"..."}`
    public static func error(_ message: String) -> String { object([("error", JSONText.quote(message))]) }
}
