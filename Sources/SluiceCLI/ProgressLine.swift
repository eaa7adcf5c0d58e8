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
    private let start = DispatchTime.now().uptimeNanoseconds
    private var lastDraw: UInt64 = 0
    private var drewOnce = false

    /// Only when stderr is a terminal, and not under -s: progress never pollutes a log or a pipe.
    static func ifTerminal() -> ProgressLine? {
        StandardStreams.quiet == .no && isatty(2) == 1 ? ProgressLine() : nil
    }

    func update(received: Int64, expected: Int64, force: Bool = false) {
        let now = DispatchTime.now().uptimeNanoseconds
        guard force || now &- lastDraw >= 100_000_000 else { return }
        lastDraw = now
        drewOnce = true
        let seconds = max(Double(now &- start) / 1e9, 0.001)
        var text = ByteCountText.format(received)
        if expected > 0 {
            let percent = min(100, Int(Double(received) * 100 / Double(expected)))
            text += " / \(ByteCountText.format(expected)) \(percent)%"
        }
        text += "  " + ByteCountText.rate(Double(received) / seconds)
        StandardStreams.error(("\r\u{1B}[K" + text))
    }

    func end() {
        if drewOnce { StandardStreams.error("\n") }
    }
}
