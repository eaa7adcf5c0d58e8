// The times a stored timeline's lines carry ("+1.250s"), written without Foundation's String(format:).
@testable import SluiceTUI
import Testing

@Suite struct StoredRowTextTests {
    @Test func secondsHaveThreeDecimalsRoundedToTheNearest() {
        #expect(StoredRow.secondsText(nanoseconds: 0) == "0.000")
        #expect(StoredRow.secondsText(nanoseconds: 1_250_000_000) == "1.250")
        #expect(StoredRow.secondsText(nanoseconds: 7_000_000) == "0.007")
        #expect(StoredRow.secondsText(nanoseconds: 999_500_000) == "1.000")
        #expect(StoredRow.secondsText(nanoseconds: 12_345_499_999) == "12.345")
        #expect(StoredRow.secondsText(nanoseconds: UInt64.max) == "18446744073.710")
    }
}
