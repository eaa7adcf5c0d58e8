// The engine's own receive limit as a token bucket, with the clock passed in.
import Testing
@testable import SluiceEngine

@Suite struct ReceivePacerTests {
    let second: UInt64 = 1_000_000_000

    func may(_ pacer: inout ReceivePacer, _ now: UInt64) -> Bool { pacer.mayReceive(now: now) }

    @Test func aTenthOfASecondMayComeAtOnceThenTheRateHolds() {
        var pacer = ReceivePacer(rate: 100_000, now: 0)
        #expect(may(&pacer, 0))
        pacer.take(10_500)
        #expect(!may(&pacer, 0))
        #expect(!may(&pacer, second / 1000))
        #expect(may(&pacer, second / 100))
    }

    /// A callback's bytes cannot be split: a read past what was left is repaid before the next.
    @Test func aReadPastTheAllowanceIsRepaidFirst() {
        var pacer = ReceivePacer(rate: 100_000, now: 0)
        pacer.take(16_384 * 10)  // 163,840 against 10,000
        #expect(!may(&pacer, second))  // 63,840 still owed after a second
        #expect(may(&pacer, 2 * second))
    }

    @Test func atMostASecondIsSavedUp() {
        var pacer = ReceivePacer(rate: 100_000, now: 0)
        #expect(may(&pacer, 60 * second))
        pacer.take(100_000)
        #expect(!may(&pacer, 60 * second))
    }

    @Test func aLowerRateCutsWhatWasSavedUp() {
        var pacer = ReceivePacer(rate: 1_000_000, now: 0)
        pacer.change(rate: 1000, now: 5 * second)
        pacer.take(1000)
        #expect(!may(&pacer, 5 * second))
        #expect(pacer.tokens == 0)
    }

    @Test func aRateIsNeverZero() {
        var pacer = ReceivePacer(rate: 0, now: 0)
        #expect(pacer.rate == 1)
        pacer.take(1)
        #expect(may(&pacer, 2 * second))
    }
}
