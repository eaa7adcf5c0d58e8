// Elapsed-time text for --trace and the demo timeline, including runs far longer than a test takes.
import Testing
@testable import SluiceCLI

@Suite struct SecondsTextTests {
    @Test func roundsToTheLastDecimal() {
        #expect(SecondsText.format(nanoseconds: 1_000_000, decimals: 6) == "0.001000")
        #expect(SecondsText.format(nanoseconds: 1_499_999, decimals: 3) == "0.001")
        #expect(SecondsText.format(nanoseconds: 1_500_000, decimals: 3) == "0.002")
        #expect(SecondsText.format(nanoseconds: 123, decimals: 9) == "0.000000123")
        #expect(SecondsText.format(nanoseconds: 2_600_000_000, decimals: 0) == "3")
    }

    @Test func aDayLongTraceDoesNotOverflow() {
        let day: UInt64 = 86_400 * 1_000_000_000
        #expect(SecondsText.format(nanoseconds: day + 250_000_000, decimals: 6) == "86400.250000")
    }
}
