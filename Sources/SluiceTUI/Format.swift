// Short numbers for narrow columns: durations, rates, percentages.
import SluiceViewModel

enum Format {
    /// "9s", "2m05s", "1h02m", "3d04h".
    static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0 else { return "" }
        let s = Int(seconds.rounded())
        if s < 60 { return "\(s)s" }
        if s < 3600 { return "\(s / 60)m" + String(s % 60).leftPadded(to: 2) + "s" }
        if s < 86400 { return "\(s / 3600)h" + String(s / 60 % 60).leftPadded(to: 2) + "m" }
        return "\(min(s / 86400, 999))d" + String(s / 3600 % 24).leftPadded(to: 2) + "h"
    }

    static func seconds(_ nanoseconds: UInt64) -> String {
        let tenths = nanoseconds / 100_000_000
        return "\(tenths / 10).\(tenths % 10)s"
    }
}
