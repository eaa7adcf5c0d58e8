// A descriptor another thread makes readable: the screen's loop waits on it beside the terminal, so that what the
// transfers report is folded in when it arrives rather than at the next timeout.
#if canImport(Glibc)
import Glibc
#endif

public final class WakeSignal: Sendable {
    /// The read end of a non-blocking pipe: readable while a signal is pending.
    let fd: Int32
    private let writeEnd: Int32

    /// Nil when the system gives no pipe (out of descriptors): the loop then wakes on its timeout alone.
    public init?() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)  // not left open in a hook's or a task-command's process
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        fd = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        close(fd)
        close(writeEnd)
    }

    /// Safe from any thread. A full pipe means a signal is pending already, so a refused write loses nothing.
    public func signal() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Takes back every pending signal (many before a wait read as one), so that the next wait sleeps again.
    func clear() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(fd, &buffer, buffer.count) > 0 {}
    }
}
