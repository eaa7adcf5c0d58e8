// Human byte counts and rates for progress lines: 1.5 MiB, 12 KiB/s.

public enum ByteCountText {
    public static func format(_ bytes: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        if unit == 0 { return "\(bytes) B" }
        let rounded = value >= 100 ? String(Int(value.rounded())) : String((value * 10).rounded() / 10)
        return "\(rounded) \(units[unit])"
    }

    /// "1.5 MiB/s".
    public static func rate(_ bytesPerSecond: Double) -> String {
        format(Int64(bytesPerSecond.rounded())) + "/s"
    }
}
