// `get`'s progress line: the speed is this run's bytes over this run's time, not the bytes a resume found on disk.
import Dispatch
import Testing
@testable import SluiceCLI

@Suite struct ProgressLineTests {
    @Test func aResumedDownloadsSpeedCountsOnlyTheNewBytes() {
        let line = ProgressLine()
        line.resumed(at: 750_000)
        let now = DispatchTime.now().uptimeNanoseconds + 1_000_000_000
        let rate = line.rate(received: 950_000, now: now)
        #expect(rate > 190_000 && rate <= 200_000, "200,000 new bytes in about a second: \(rate)")
    }

    @Test func aFreshDownloadsSpeedCountsEveryByte() {
        let line = ProgressLine()
        let now = DispatchTime.now().uptimeNanoseconds + 2_000_000_000
        let rate = line.rate(received: 400_000, now: now)
        #expect(rate > 190_000 && rate <= 200_000, "\(rate)")
    }

    /// The line fits in one column less than the terminal has, dropping what matters least first; at 30 columns
    /// the whole line wrapped and every redraw left a copy behind (found by a tester).
    @Test func theLineFitsTheTerminalsWidth() {
        let mib: Int64 = 1 << 20
        let whole = ProgressLine.text(received: 4 * mib, expected: 19 * mib, rate: 1_048_576, width: 80)
        #expect(whole == "4.0 MiB / 19.0 MiB 21%  1.0 MiB/s")
        #expect(ProgressLine.text(received: 4 * mib, expected: 19 * mib, rate: 1_048_576, width: 30) == "21%  1.0 MiB/s")
        #expect(ProgressLine.text(received: 4 * mib, expected: 19 * mib, rate: 1_048_576, width: 8) == "21%")
        #expect(ProgressLine.text(received: 4 * mib, expected: 19 * mib, rate: 1_048_576, width: 3) == "21")
        #expect(ProgressLine.text(received: 4 * mib, expected: 0, rate: 1_048_576, width: 30) == "4.0 MiB  1.0 MiB/s")
        #expect(ProgressLine.text(received: 4 * mib, expected: 0, rate: 1_048_576, width: 12) == "4.0 MiB")
        for width in 1...100 {
            let line = ProgressLine.text(received: 4 * mib, expected: 19 * mib, rate: 1_048_576, width: width)
            #expect(line.utf8.count <= max(1, width - 1), "\(width): \(line)")
        }
    }
}
