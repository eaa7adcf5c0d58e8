// Writing text to stdout and stderr through plain write(2), with no buffering to flush on exit; and curl's -s and
// -S, which decide what of it reaches stderr.
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

enum StandardStreams {
    /// What reaches standard error: everything; errors only (`-sS`); nothing (`-s`, the exit status tells).
    enum Quiet: UInt8 {
        case no = 0, errorsOnly = 1, all = 2
    }

    /// Set once, before the transfers (GetCommand); read from any thread.
    private static let quietness = Atomic<UInt8>(Quiet.no.rawValue)

    static var quiet: Quiet { Quiet(rawValue: quietness.load(ordering: .relaxed)) ?? .no }

    static func setQuiet(_ quiet: Quiet) { quietness.store(quiet.rawValue, ordering: .relaxed) }

    static func error(_ text: String) {
        if quiet != .all { writeAll(2, text) }
    }

    /// "sluice: warning: ..." lines: not errors, so `-sS` hides them too (as curl's).
    static func warning(_ text: String) {
        if quiet == .no { writeAll(2, "sluice: warning: " + text + "\n") }
    }

    static func output(_ text: String) { writeAll(1, text) }

    /// What the user asked to see on stderr (-w's `%{stderr}`): -s does not hide it.
    static func errorAsked(_ text: String) { writeAll(2, text) }

    private static func writeAll(_ fd: Int32, _ text: String) {
        var text = text
        text.withUTF8 { bytes in
            guard var p = bytes.baseAddress else { return }
            var left = bytes.count
            while left > 0 {
                let n = write(fd, p, left)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return }
                p += n
                left -= n
            }
        }
    }
}
