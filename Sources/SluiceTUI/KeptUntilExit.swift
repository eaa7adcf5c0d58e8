// What a command holds until its process exits instead of freeing it on the way out. The rows, flows and tasks of
// thousands of transfers are freed one allocation at a time: perf showed about 10 ms of it for 2,000 downloads, on
// one thread, after the last transfer had ended and with nothing else left to do. Exit hands the memory back at once.
import SluiceLock

public enum KeptUntilExit {
    private static let kept = Locked<[any Sendable]>([])

    /// Only for what a process's last act owns (the screen's loop, the plain mode's, the command's app): anything
    /// else kept here would stay for the rest of a longer life.
    public static func keep(_ value: any Sendable) { kept.withLock { $0.append(value) } }
}
