// Progress as plain text, one line per task, for when standard output is not a terminal.
import SluiceEngine
import SluiceStore
import SluiceViewModel

/// One plain line per task for logs and pipes: no colour, no escape sequence.
public enum PlainLine {
    public static func text(_ row: TaskRow, now: UInt64) -> String {
        // One string, the parts appended in place: an array of parts joined cost a third of a line.
        var line = "#"
        line.reserveCapacity(160)
        line += String(row.id)
        func part(_ text: String) {
            line += "  "
            line += text
        }
        if let next = row.becameTask {
            part("became download #" + String(next))
        } else if case .failed(let failure) = row.outcome {
            part("failed: " + failure.words[0])
        } else if let retry = row.retry {
            part(retry.text(now: now) + ": " + retry.reason)
        } else {
            part(row.stateWord)
            if let status = row.httpFailure { part("HTTP " + String(status)) }
        }
        part(ByteCountText.format(row.bytes))
        if row.expected >= 0 {
            line += " of "
            line += ByteCountText.format(row.expected)
        }
        if let rate = row.bytesPerSecond(now: now) { part(ByteCountText.rate(rate)) }
        if let path = row.savedPath { part("saved " + path) }
        part(row.name)
        part(Redacted.url(row.url))
        if case .failed(let failure) = row.outcome { part("(" + failure.detail + ")") }
        if row.keptForResume { part("(partial file kept for the next run)") }
        return Sanitized.text(line)
    }
}
