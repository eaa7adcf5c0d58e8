// Elapsed time as fixed-decimal seconds ("1.250000"), without Foundation's formatters.

enum SecondsText {
    /// `decimals` is clamped to 0...9, the precision nanoseconds carry.
    static func format(nanoseconds: UInt64, decimals: Int) -> String {
        let decimals = min(9, max(0, decimals))
        var scale: UInt64 = 1
        for _ in 0..<decimals { scale *= 10 }
        let unit = 1_000_000_000 / scale                  // nanoseconds per last decimal; no overflow for any input
        let units = nanoseconds / unit + (unit > 1 && (nanoseconds % unit) * 2 >= unit ? 1 : 0)  // rounded
        let whole = units / scale, fraction = units % scale
        guard decimals > 0 else { return String(whole) }
        return "\(whole)." + String(fraction).leftPadded(to: decimals)
    }
}
