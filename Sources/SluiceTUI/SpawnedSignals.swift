// A program sluice starts (a hook, xdg-open, notify-send, the daemon) begins with its signals as usual. exec keeps
// the signal mask of the thread that spawns and every ignored signal: Dispatch's worker threads block nearly all
// signals, and sluice ignores SIGINT, SIGTERM and SIGHUP while it traps them, so a hook started from there could be
// stopped neither by its timeout's SIGTERM nor by the user, only by SIGKILL.
#if canImport(Glibc)
import Glibc
#endif

public enum SpawnedSignals {
    /// Sets `attributes` to give the child an empty signal mask and the default action for every signal sluice may
    /// ignore; returns the flags that make posix_spawn use these settings (to be added to the others).
    public static func reset(_ attributes: inout posix_spawnattr_t) -> Int32 {
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGXFSZ] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        return Int32(POSIX_SPAWN_SETSIGMASK) | Int32(POSIX_SPAWN_SETSIGDEF)
    }
}
