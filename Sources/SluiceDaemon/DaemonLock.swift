// At most one daemon per identifier: an flock on ID.lock, held for the daemon's life. The kernel drops it when
// the process dies however it dies, so a lock file or socket left by a crash is found free and taken over.
#if canImport(Glibc)
import Glibc
#endif

public final class DaemonLock: Sendable {
    private let fd: Int32

    private init(fd: Int32) { self.fd = fd }

    public enum Outcome: Sendable {
        case acquired(DaemonLock)
        /// Another live process holds it (its pid, when it wrote one).
        case held(pid: Int32?)
    }

    /// Takes the lock without waiting; writes our pid into the file for the curious.
    public static func acquire(_ path: String) throws(DaemonFailure) -> Outcome {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw DaemonFailure("cannot open \(path): \(String(cString: strerror(errno)))") }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let reason = errno
            defer { close(fd) }
            if reason == EWOULDBLOCK { return .held(pid: readPID(fd)) }
            throw DaemonFailure("cannot lock \(path): \(String(cString: strerror(reason)))")
        }
        let text = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pwrite(fd, text, text.count, 0)
        return .acquired(DaemonLock(fd: fd))
    }

    /// Whether a live daemon holds the lock at `path` (a probe: takes it and lets go at once when free).
    public static func isHeld(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {
            _ = flock(fd, LOCK_UN)
            return false
        }
        return errno == EWOULDBLOCK
    }

    private static func readPID(_ fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 16)
        let n = pread(fd, &buffer, buffer.count, 0)
        guard n > 0 else { return nil }
        return Int32(String(decoding: buffer[0..<n].filter { $0 >= 0x30 && $0 <= 0x39 }, as: UTF8.self))
    }

    /// Lets go (at exit the kernel does the same).
    public func release() {
        _ = flock(fd, LOCK_UN)
        close(fd)
    }
}
