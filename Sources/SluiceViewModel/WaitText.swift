// How long until something happens (a retry), as a person reads it: Retry-After may say an hour, and
// "retrying in 3600 s" makes the reader do the sum.
public enum WaitText {
    /// "1.5 s" and "45 s" under two minutes; "5 min" (rounded up) under two hours; "2 h" or "2 h 5 min" beyond.
    public static func of(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "a while" }
        guard seconds >= 120 else {
            let tenths = Int((max(0, seconds) * 10).rounded())
            return (tenths % 10 == 0 ? String(tenths / 10) : "\(tenths / 10).\(tenths % 10)") + " s"
        }
        let minutes = Int((min(seconds, 1e9) / 60).rounded(.up))
        guard minutes >= 120 else { return "\(minutes) min" }
        return "\(minutes / 60) h" + (minutes % 60 == 0 ? "" : " \(minutes % 60) min")
    }
}
