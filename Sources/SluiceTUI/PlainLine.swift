// Progress as plain text, one line per task, for when standard output is not a terminal.
import SluiceEngine
import SluiceViewModel

/// One plain line per task for logs and pipes: no colour, no escape sequence.
public enum PlainLine {
    public static func text(_ row: TaskRow, now: UInt64) -> String {
        var parts = ["#\(row.id)"]
        if let next = row.becameTask {
            parts.append("became download #\(next)")
        } else if case .failed(let failure) = row.outcome {
            parts.append("failed: " + failure.words[0])
        } else if let retry = row.retry {
            parts.append(retry.text(now: now) + ": " + retry.reason)
        } else {
            parts.append(row.stateWord)
            if let status = row.httpFailure { parts.append("HTTP \(status)") }
        }
        var size = ByteCountText.format(row.bytes)
        if row.expected >= 0 { size += " of " + ByteCountText.format(row.expected) }
        parts.append(size)
        if let rate = row.bytesPerSecond(now: now) { parts.append(ByteCountText.rate(rate)) }
        if let path = row.savedPath { parts.append("saved " + path) }
        parts.append(row.name)
        parts.append(row.url)
        if case .failed(let failure) = row.outcome { parts.append("(" + failure.detail + ")") }
        return Sanitized.text(parts.joined(separator: "  "))
    }
}
