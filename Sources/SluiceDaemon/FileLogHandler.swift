// swift-log's handler for the daemon's log file: one line per message, appended with one write(2) each, so
// lines from several threads never interleave and a crash loses none already written.
#if canImport(Glibc)
import Glibc
#endif
import Logging
import SluiceViewModel

/// The open log file, shared by every logger of the process.
public final class LogFile: Sendable {
    let fd: Int32
    /// Also to standard error (`--foreground`, for systemd's journal or a container's log).
    let echo: Bool

    /// Opens `path` for appending (0600: URLs and file names are nobody else's business).
    public init(path: String, echo: Bool) throws(DaemonFailure) {
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw DaemonFailure("cannot open the log \(path): \(String(cString: strerror(errno)))") }
        self.fd = fd
        self.echo = echo
    }

    func write(_ line: String) {
        var bytes = Array(line.utf8)
        bytes.append(0x0A)
        _ = Glibc.write(fd, bytes, bytes.count)
        if echo { _ = Glibc.write(2, bytes, bytes.count) }
    }
}

public struct FileLogHandler: LogHandler {
    private let file: LogFile
    private let label: String
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info

    public init(label: String, file: LogFile) {
        self.label = label
        self.file = file
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields = metadata
        if let more = event.metadata { fields.merge(more) { $1 } }
        var line = Self.timestamp() + " " + event.level.rawValue + " " + label + ": " + Sanitized.text(event.message.description)
        for key in fields.keys.sorted() {
            line += " " + key + "=" + Sanitized.text(fields[key].map { "\($0)" } ?? "")
        }
        file.write(line)
    }

    /// UTC, to the millisecond: ISO 8601 without Foundation's formatter.
    static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var parts = tm()
        var seconds = now.tv_sec
        gmtime_r(&seconds, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let millis = Int(now.tv_nsec / 1_000_000)
        let ms = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(ms)Z"
    }
}
