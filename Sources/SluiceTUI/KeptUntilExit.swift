// What a command holds until its process exits instead of freeing it on the way out. The rows and flows of thousands
// of transfers are freed one allocation at a time: perf showed about 10 ms of it for 2,000 downloads, on one thread,
// after the last transfer had ended and with nothing else left to do. Exit hands the memory back at once.
import SluiceLock

public enum KeptUntilExit {
    private static let kept = Locked<[any Sendable]>([])

    /// Only for plain values a process's last act built (the screen's loop's model and flows, the plain mode's
    /// model): anything else kept here would stay for the rest of a longer life. Never an object whose deinit does
    /// work (the app: its task store writes what is left and closes the database when it goes).
    public static func keep(_ value: any Sendable) { kept.withLock { $0.append(value) } }
}
