// Progress as plain text, one line per task, for when standard output is not a terminal.
import SluiceEngine
import SluiceViewModel

/// One plain line per task for logs and pipes: no colour, no escape sequence.
public enum PlainLine {
    public static func text(_ row: TaskRow, now: UInt64) -> String {
        var parts = ["#\(row.id)"]
        switch (row.state, row.outcome) {
        case (.completed, .failed(let why)): parts.append("failed: \(why)")
        case (.completed, .cancelled): parts.append("cancelled")
        case (.completed, _):
            parts.append(row.becameTask.map { "became download #\($0)" } ?? "finished")
        default: parts.append(row.awaitingDisposition ? "awaiting" : row.state.rawValue)
        }
        var size = ByteCountText.format(row.bytes)
        if row.expected >= 0 { size += " of " + ByteCountText.format(row.expected) }
        parts.append(size)
        if let rate = row.bytesPerSecond(now: now) { parts.append(ByteCountText.rate(rate)) }
        if let path = row.savedPath { parts.append("saved " + path) }
        parts.append(row.url)
        return Sanitized.text(parts.joined(separator: "  "))
    }
}
