// The time until a retry, as the row and the CLI say it.
import Testing
@testable import SluiceViewModel

@Suite struct WaitTextTests {
    @Test func secondsUnderTwoMinutesKeepTheirTenths() {
        #expect(WaitText.of(1.5) == "1.5 s")
        #expect(WaitText.of(4) == "4 s")
        #expect(WaitText.of(119) == "119 s")
    }

    @Test func longerWaitsAreMinutesThenHours() {
        // Retry-After: 3600 read "retrying in 3600 s".
        #expect(WaitText.of(3600) == "60 min")
        #expect(WaitText.of(120) == "2 min")
        #expect(WaitText.of(121) == "3 min")  // rounded up: never "sooner" than it is
        #expect(WaitText.of(7200) == "2 h")
        #expect(WaitText.of(7500) == "2 h 5 min")
        #expect(WaitText.of(86400) == "24 h")
    }

    @Test func nonsenseStaysReadable() {
        #expect(WaitText.of(-3) == "0 s")
        #expect(WaitText.of(.infinity) == "a while")
        #expect(WaitText.of(1e300) == "277777 h 47 min")  // capped at 1e9 s
    }

    @Test func theRowSaysItThatWay() {
        let retry = RetryWait(attempt: 2, of: 5, at: 3_600_000_000_000, reason: "503")
        #expect(retry.text(now: 0) == "retrying in 60 min (2/5)")
        #expect(retry.text(now: 3_596_000_000_000) == "retrying in 4 s (2/5)")
        #expect(retry.text(now: 3_600_000_000_000) == "queued to retry (2/5)")
    }
}
