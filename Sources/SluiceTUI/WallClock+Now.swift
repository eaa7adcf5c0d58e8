// Reads both clocks at once, for the files that need dates (HAR); the pure view-model reads none.
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import SluiceViewModel

extension WallClock {
    /// The uptime clock and the real time, read now.
    public static var now: WallClock {
        var real = timespec()
        clock_gettime(CLOCK_REALTIME, &real)
        return WallClock(uptime: DispatchTime.now().uptimeNanoseconds,
                         unixNanoseconds: Int64(real.tv_sec) * 1_000_000_000 + Int64(real.tv_nsec))
    }
}
