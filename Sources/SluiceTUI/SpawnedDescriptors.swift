// A program sluice starts (a hook, xdg-open, notify-send, the daemon) gets standard input, output and error and
// nothing else of sluice's. Not every descriptor is close-on-exec: SwiftNIO's listening and accepted sockets are
// not, nor are libcurl's. A hook that kept a client's connection to the daemon open (`exec sleep 600`) kept the
// client from ever seeing the reply's end: `sluice add` waited out its 30 s timeout though the daemon had answered.
#if canImport(Glibc)
import Glibc
#endif
import CSpawn

public enum SpawnedDescriptors {
    /// Adds to `actions` a close of every descriptor above 2 in the child (glibc's close-from, 2.34 and later), so
    /// that one another thread opens meanwhile (NIO accepting a connection) is closed too. Without it, each of this
    /// process's descriptors above 2 without close-on-exec as a scan finds them; one closed again before the spawn
    /// is harmless (posix_spawn ignores a close that fails with EBADF).
    public static func closeInherited(_ actions: inout posix_spawn_file_actions_t) {
        if sluice_spawn_close_from(&actions, 3) == 0 { return }
        for fd in inheritable() { posix_spawn_file_actions_addclose(&actions, fd) }
    }

    /// This process's descriptors above 2 without close-on-exec.
    static func inheritable() -> [Int32] {
        var found: [Int32] = []
        _ = DirectoryNames.read("/proc/self/fd") { name, own in
            guard let fd = Int32(name), fd > 2, fd != own else { return }
            let flags = fcntl(fd, F_GETFD)
            if flags >= 0 && flags & FD_CLOEXEC == 0 { found.append(fd) }
        }
        return found
    }
}
