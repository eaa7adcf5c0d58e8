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
}
