// Writing text to stdout and stderr through plain write(2), with no buffering to flush on exit.
#if canImport(Glibc)
import Glibc
#endif

enum StandardStreams {
    static func error(_ text: String) { writeAll(2, text) }
    static func output(_ text: String) { writeAll(1, text) }

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
