// The terminal's bell, for `--notify` where no desktop notification can be sent: one BEL byte to standard error
// (the terminal the UI runs on), which curses leaves alone.
#if canImport(Glibc)
import Glibc
#endif

enum Bell {
    static func ring() {
        var bell: UInt8 = 7
        _ = write(2, &bell, 1)
    }
}
