// When a download's resume state goes to disk, one transition at a time: a list's downloads wait a second after
// their first bytes, a single `-o` download checkpoints them at once, and then once a second for both.
import SluiceTUI
import Testing

@Suite struct CheckpointClockTests {
    let second = CheckpointClock.interval

    /// Bytes arriving at `now`: whether the clock called for a checkpoint (`#expect` takes no mutating call).
    func arrive(_ clock: inout CheckpointClock, _ now: UInt64) -> Bool { clock.bytesArrived(now: now) }

    @Test func aListsDownloadWaitsASecondAfterItsFirstBytes() {
        var clock = CheckpointClock(waitsAfterFirstBytes: true)
        #expect(!clock.isDue(now: 5))
        #expect(!arrive(&clock, 5), "the first bytes start the clock")
        #expect(clock.last == 5)
        #expect(!arrive(&clock, 5 + second - 1))
        #expect(clock.isDue(now: 5 + second), "a stall's sweep finds it due")
        #expect(arrive(&clock, 5 + second))
        #expect(clock.last == 5 + second)
        #expect(!arrive(&clock, 5 + second + 1))
    }

    @Test func aSingleDownloadCheckpointsItsFirstBytes() {
        var clock = CheckpointClock(waitsAfterFirstBytes: false)
        #expect(clock.isDue(now: 5))
        #expect(arrive(&clock, 5))
        #expect(!arrive(&clock, 6))
        #expect(arrive(&clock, 5 + second))
    }

    @Test func aForcedCheckpointAndANewAttemptSetTheClock() {
        var clock = CheckpointClock(waitsAfterFirstBytes: true)
        _ = arrive(&clock, 5)
        clock.taken(now: 7)
        #expect(!clock.isDue(now: 6 + second))
        #expect(clock.isDue(now: 7 + second))
        clock.restart()
        #expect(clock.last == 0)
        #expect(!arrive(&clock, 100), "the next attempt's first bytes wait again")
    }
}
