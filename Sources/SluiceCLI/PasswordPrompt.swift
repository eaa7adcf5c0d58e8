// Asking for a password on the terminal with echo off, as curl does for -u USER; the terminal is restored even
// when Ctrl-C ends the program at the prompt.
#if canImport(Glibc)
import Glibc
#endif

enum PasswordPrompt {
    /// On the controlling terminal (/dev/tty, so it works with standard input and output redirected); nil when
    /// there is none.
    static func ask(_ prompt: String) -> String? {
        let fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return ask(prompt, terminal: fd)
    }

    /// Writes the prompt to `terminal`, reads one line with echo off, restores the terminal and ends the line
    /// the user could not see. Nil when `terminal` is not a terminal or the input ends before a line.
    static func ask(_ prompt: String, terminal fd: Int32) -> String? {
        var saved = termios()
        guard isatty(fd) == 1, tcgetattr(fd, &saved) == 0 else { return nil }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO | ECHOE | ECHOK | ECHONL)
        quiet.c_lflag |= tcflag_t(ICANON)
        savedTerminal = (fd, saved)
        let previous = (signal(SIGINT, restoreAndReraise), signal(SIGTERM, restoreAndReraise), signal(SIGHUP, restoreAndReraise))
        _ = tcsetattr(fd, TCSAFLUSH, &quiet)
        writeAll(fd, prompt)  // after echo is off: what is typed once the prompt shows is never echoed
        let line = readLine(fd)
        _ = tcsetattr(fd, TCSAFLUSH, &saved)
        signal(SIGINT, previous.0)
        signal(SIGTERM, previous.1)
        signal(SIGHUP, previous.2)
        savedTerminal = nil
        writeAll(fd, "\n")
        return line
    }

    private static func readLine(_ fd: Int32) -> String? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let n = read(fd, &byte, 1)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if byte == 10 || byte == 13 { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
    }

    private static func writeAll(_ fd: Int32, _ text: String) {
        var rest = Array(text.utf8)[...]
        while !rest.isEmpty {
            let n = rest.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            rest = rest.dropFirst(n)
        }
    }
}

/// The terminal and its modes while a prompt has echo off; read by the signal handler, so a plain global.
nonisolated(unsafe) private var savedTerminal: (Int32, termios)?

/// Puts the echo back, then dies of the same signal as it would have without the prompt.
private func restoreAndReraise(_ signalNumber: Int32) {
    if let (fd, saved) = savedTerminal {
        var modes = saved
        _ = tcsetattr(fd, TCSANOW, &modes)
    }
    signal(signalNumber, SIG_DFL)
    raise(signalNumber)
}
