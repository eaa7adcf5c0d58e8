// The session's receive budget, one transition at a time: time adds the limit's bytes (up to a second's worth),
// bytes that arrive are owed, and no new transfer starts while anything is owed.
import Testing
@testable import SluiceEngine

@Suite struct ReceiveBudgetTests {
    let second: UInt64 = 1_000_000_000

    @Test func aNewBudgetLetsTheFirstTransfersStart() {
        let budget = ReceiveBudget(limit: 1_000, now: 5 * second)
        #expect(budget.balance == 0)
        #expect(budget.allowsStart)
        #expect(budget.nanosecondsUntilStart == 0)
    }

    @Test func bytesThatArriveAreOwedAndHoldBackTheNextStart() {
        var budget = ReceiveBudget(limit: 1_000, now: 0)
        budget.spend(16_384)
        #expect(budget.balance == -16_384)
        #expect(budget.spent == 16_384)
        #expect(!budget.allowsStart)
        #expect(budget.nanosecondsUntilStart == 16_384_000_000)
    }

    @Test func timeRepaysTheDebtAtTheLimit() {
        var budget = ReceiveBudget(limit: 1_000, now: 0)
        budget.spend(2_000)
        budget.advance(to: second)
        #expect(budget.balance == -1_000)
        #expect(!budget.allowsStart)
        #expect(budget.nanosecondsUntilStart == second)
        budget.advance(to: 2 * second)
        #expect(budget.balance == 0)
        #expect(budget.allowsStart)
    }

    @Test func aQuietSpellSavesAtMostOneSecondsWorth() {
        var budget = ReceiveBudget(limit: 1_000, now: 0)
        budget.advance(to: 60 * second)
        #expect(budget.balance == 1_000)
        budget.spend(1_500)
        #expect(budget.balance == -500)
    }

    @Test func aClockThatGoesBackAddsNothing() {
        var budget = ReceiveBudget(limit: 1_000, now: 10 * second)
        budget.spend(500)
        budget.advance(to: 9 * second)
        #expect(budget.balance == -500)
        budget.advance(to: 10 * second + second / 2)
        #expect(budget.balance == 0)
    }

    @Test func nothingArrivingCostsNothing() {
        var budget = ReceiveBudget(limit: 1_000, now: 0)
        budget.spend(0)
        budget.spend(-5)
        #expect(budget.balance == 0 && budget.spent == 0)
    }

    @Test func aChargeNotUsedIsGivenBackWithinWhatMayBeSaved() {
        var budget = ReceiveBudget(limit: 1_000, now: 0)
        budget.spend(16_384)
        budget.refund(6_384)
        #expect(budget.balance == -10_000 && budget.spent == 10_000)
        budget.refund(50_000)
        #expect(budget.balance == 1_000, "no more than a second's worth")
        budget.refund(-5)
        #expect(budget.balance == 1_000)
    }

    @Test func anAbsurdDebtWaitsAnHourAtMost() {
        var budget = ReceiveBudget(limit: 1, now: 0)
        budget.spend(Int64.max / 2)
        #expect(budget.nanosecondsUntilStart == 3_600_000_000_000)
    }

    @Test func aNewLimitKeepsWhatIsOwed() {
        var budget = ReceiveBudget(limit: 1_000, now: 0)
        budget.spend(3_000)
        let faster = budget.changed(to: 4_000, now: second)
        #expect(faster.limit == 4_000)
        #expect(faster.balance == -2_000)
        #expect(faster.spent == 3_000)
        #expect(faster.nanosecondsUntilStart == second / 2)
    }

    @Test func aNewLimitCapsWhatWasSaved() {
        var budget = ReceiveBudget(limit: 10_000, now: 0)
        budget.advance(to: 5 * second)
        #expect(budget.balance == 10_000)
        #expect(budget.changed(to: 1_000, now: 5 * second).balance == 1_000)
    }
}
