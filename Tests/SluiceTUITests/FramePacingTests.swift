// The screen loop's pacing, one pass at a time: while events keep every pass busy, a tick still comes every 200 ms
// (it had counted from the last frame, which came every 100 ms, so a split download's map froze); frames at most
// every 100 ms; a key has both at once.
@testable import SluiceTUI
import Testing

@Suite struct FramePacingTests {
    let ms: UInt64 = 1_000_000
    let start: UInt64 = 10_000_000_000

    @Test func aBusyScreenStillTicksEvery200Milliseconds() {
        var pacing = FramePacing()
        var ticks: [UInt64] = []
        var frames: [UInt64] = []
        for pass in 0...20 {  // a pass every 50 ms for a second, each with new events
            let now = start + UInt64(pass) * 50 * ms
            if pacing.tick(now: now) { ticks.append((now - start) / ms) }
            if pacing.draw(now: now, changed: true) { frames.append((now - start) / ms) }
        }
        #expect(ticks == [0, 200, 400, 600, 800, 1000])
        #expect(frames == [0, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000])
    }

    @Test func aQuietScreenDrawsNothingAndAKeyHasATickAndAFrameAtOnce() {
        var pacing = FramePacing()
        /// One pass at `after` milliseconds: whether it ticked and whether it drew (`#expect` takes no mutating call).
        func pass(_ after: UInt64, changed: Bool = true) -> [Bool] {
            let now = start + after * ms
            return [pacing.tick(now: now), pacing.draw(now: now, changed: changed)]
        }
        #expect(pass(0) == [true, true])
        #expect(pass(10) == [false, false])
        #expect(pass(150, changed: false) == [false, false], "nothing changed")
        pacing.expedite()
        #expect(pass(160) == [true, true])
    }
}
