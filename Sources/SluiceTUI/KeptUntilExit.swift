// What a command holds until its process exits instead of freeing it on the way out. The rows and flows of thousands
// of transfers are freed one allocation at a time: perf showed about 10 ms of it for 2,000 downloads, on one thread,
// after the last transfer had ended and with nothing else left to do. Exit hands the memory back at once.
import SluiceLock

public enum KeptUntilExit {
    /// Whose values: one slot each, so that a caller running a loop again (a test, a program embedding it) holds one
    /// run's values, not every run's.
    public enum Slot: Hashable, Sendable {
        case screen
        case plainMode
    }

    private static let kept = Locked<[Slot: any Sendable]>([:])

    /// Keeps `value` in `slot`; what the slot held before is freed now (after the lock). Only for plain values built
    /// by a loop after which its command only stops its tasks and exits (the screen's model and flows, the plain
    /// mode's model). Never an object whose deinit does work (the app: its task store writes what is left then).
    public static func keep(_ value: any Sendable, in slot: Slot) {
        _ = kept.withLock { $0.updateValue(value, forKey: slot) }
    }
}
