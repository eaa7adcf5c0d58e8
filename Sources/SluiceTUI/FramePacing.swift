// When the screen loop ticks and draws: a tick (rates, ETAs, the selected row's segment map) every 200 ms however
// many frames were drawn meanwhile, and a frame at most every 100 ms when something changed, at once after a key.

struct FramePacing {
    static let tickInterval: UInt64 = 200_000_000
    static let frameInterval: UInt64 = 100_000_000

    /// Uptime nanoseconds of the last tick and the last frame; 0 before the first (or to have the next at once).
    private(set) var lastTick: UInt64 = 0
    private(set) var lastDraw: UInt64 = 0

    /// Whether a tick is due at `now`; if so it is counted as made. It had counted from the last frame, and a frame
    /// came every 100 ms while bytes flowed, so a split download's segment map was sampled once and stayed so
    /// (found by a tester).
    mutating func tick(now: UInt64) -> Bool {
        guard now &- lastTick >= Self.tickInterval else { return false }
        lastTick = now
        return true
    }

    /// Whether a frame is due at `now` for a screen that has `changed`; if so it is counted as drawn.
    mutating func draw(now: UInt64, changed: Bool) -> Bool {
        guard changed, now &- lastDraw >= Self.frameInterval else { return false }
        lastDraw = now
        return true
    }

    /// The next frame is drawn at once (a key was pressed; the last transfer ended), with a tick before it.
    mutating func expedite() {
        lastDraw = 0
        lastTick = 0
    }
}
