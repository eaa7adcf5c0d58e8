// One writer per partial file. A download holds an exclusive flock on its partial file's descriptor from the open
// to the close; the kernel drops it when the process ends, kill -9 included, so a lock never outlives its writer.
// flock belongs to the open file description: two downloads of one process conflict as two processes do.
#if canImport(Glibc)
import Glibc
#endif

public enum PartialFileLock {
    /// Takes the lock on `fd` without waiting: false when another open of the file holds it.
    static func take(_ fd: Int32) -> Bool {
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            if errno != EINTR { return false }
        }
        return true
    }

    /// Whether a download (of this process or another) is writing the file at `path` now. A shared lock taken and
    /// dropped at once: it conflicts only with a writer's exclusive one. For a check before touching a download's
    /// companions; the writer's own lock is what keeps the bytes safe.
    public static func isHeldElsewhere(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        guard flock(fd, LOCK_SH | LOCK_NB) == 0 else { return errno == EWOULDBLOCK }
        _ = flock(fd, LOCK_UN)
        return false
    }
}
