// One writer per partial file. A download holds a write lock on its partial file's descriptor from the open to
// the close; the kernel drops it when the process ends, kill -9 included, so a lock never outlives its writer.
// Open file description locks (Linux's F_OFD_SETLK): they belong to the descriptor's open, so two downloads of
// one process conflict as two processes do, and no other close in the process drops them (as one drops a classic
// POSIX lock); and unlike flock they can be tested without being taken (F_OFD_GETLK), so looking never gets in a
// writer's way.
#if canImport(Glibc)
import Glibc
#endif

public enum PartialFileLock {
    // <fcntl.h> defines these only with _GNU_SOURCE, which Swift's Glibc module does not import.
    private static let getLock: Int32 = 36  // F_OFD_GETLK
    private static let setLock: Int32 = 37  // F_OFD_SETLK

    /// A write lock on the whole file (what `take` sets, and what `isHeldElsewhere` asks about).
    private static func wholeFileWriteLock() -> flock {
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 0
        lock.l_len = 0  // to the end, however far the file grows
        lock.l_pid = 0  // the kernel requires it for OFD locks
        return lock
    }

    /// Takes the lock on `fd`: false only when another open of the file still holds it after `patience`
    /// milliseconds. The wait covers a hand-off within the process: a download's last attempt closes its file on
    /// the delegate queue just after its completion call, which may already have started the next attempt (a
    /// retry with no wait). It is generous; only a real conflict waits it out, once. A file system that cannot
    /// lock (an NFS mount without its lock service) is written unlocked.
    public static func take(_ fd: Int32, patience: Int = 200) -> Bool {
        var lock = wholeFileWriteLock()
        return !stillHeld(after: patience) {
            while fcntl(fd, setLock, &lock) != 0 {
                switch errno {
                case EINTR: continue
                case EAGAIN, EACCES: return true
                default: return false  // cannot lock here at all: written unlocked
                }
            }
            return false
        }
    }

    /// Whether a download (of this process or another) is writing the file at `path`, still after `patience`
    /// milliseconds (as `take` waits: a check before a retry may come while the last attempt closes its file).
    /// Tested, not taken.
    public static func isHeldElsewhere(_ path: String, patience: Int = 0) -> Bool {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return stillHeld(after: patience) {
            var lock = wholeFileWriteLock()
            guard fcntl(fd, getLock, &lock) == 0 else { return false }
            return Int32(lock.l_type) != F_UNLCK
        }
    }

    /// Asks `held` once, then every millisecond while it says yes, for up to `patience` milliseconds: its last answer.
    private static func stillHeld(after patience: Int, _ held: () -> Bool) -> Bool {
        for waited in 0...max(0, patience) {
            guard held() else { return false }
            if waited < patience { usleep(1_000) }
        }
        return true
    }
}
