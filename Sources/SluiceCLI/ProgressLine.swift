// The one-line progress display on a terminal's stderr, redrawn at most ten times a second.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import SluiceViewModel
#if canImport(Glibc)
import Glibc
#endif

final class ProgressLine {
    private var start = DispatchTime.now().uptimeNanoseconds
    /// Bytes that were there before this run (a resumed download's): no part of its speed.
    private var before: Int64 = 0
    private var lastDraw: UInt64 = 0
    private var drewOnce = false

    /// Only when stderr is a terminal, and not under -s: progress never pollutes a log or a pipe.
    static func ifTerminal() -> ProgressLine? {
        StandardStreams.quiet == .no && isatty(2) == 1 ? ProgressLine() : nil
    }

    /// The download goes on from `offset`: the rate counts what comes from now on, as curl's and wget's meters do
    /// (it read 971 KiB/s, decaying, from a server paced at 195 KiB/s).
    func resumed(at offset: Int64) {
        before = offset
        start = DispatchTime.now().uptimeNanoseconds
    }

    /// Bytes a second since the start (or the resume), given `received` in all by `now`.
    func rate(received: Int64, now: UInt64) -> Double {
        Double(max(0, received - before)) / max(Double(now &- start) / 1e9, 0.001)
    }

    func update(received: Int64, expected: Int64, force: Bool = false) {
        let now = DispatchTime.now().uptimeNanoseconds
        guard force || now &- lastDraw >= 100_000_000 else { return }
        lastDraw = now
        drewOnce = true
        let line = Self.text(received: received, expected: expected, rate: rate(received: received, now: now),
                             width: Self.terminalWidth())
        StandardStreams.error(("\r\u{1B}[K" + line))
    }

    /// The line for `width` columns, the widest of its forms that fits in one column less (a line that reaches the
    /// last column wraps on some terminals, and each redraw then left a line behind: found by a tester at 30
    /// columns). All ASCII, so a byte is a column.
    static func text(received: Int64, expected: Int64, rate: Double, width: Int) -> String {
        let bytes = ByteCountText.format(received), speed = ByteCountText.rate(rate)
        var forms = ["\(bytes)  \(speed)", bytes]
        if expected > 0 {
            let percent = "\(min(100, Int(Double(received) * 100 / Double(expected))))%"
            forms = ["\(bytes) / \(ByteCountText.format(expected)) \(percent)  \(speed)", "\(percent)  \(speed)", percent]
        }
        let room = max(1, width - 1)
        return forms.first { $0.utf8.count <= room } ?? String(forms[forms.count - 1].prefix(room))
    }

    /// Standard error's terminal width, read at each draw (the window can be resized at any time); 80 when unknown.
    static func terminalWidth() -> Int {
        var size = winsize()
        guard ioctl(2, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }

    func end() {
        if drewOnce { StandardStreams.error("\n") }
    }
}
