// Dates as people read them, in the local time zone: history lines, notes, names of files moved aside.
#if canImport(Glibc)
import Glibc
#endif

public enum LocalTime {
    /// `seconds` since 1970 formatted by strftime's `pattern`; "?" for a moment the C library cannot place.
    public static func text(_ seconds: Double, _ pattern: String = "%Y-%m-%d %H:%M") -> String {
        var moment = time_t(seconds.rounded(.down))
        var parts = tm()
        guard localtime_r(&moment, &parts) != nil else { return "?" }
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, pattern, &parts)
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
