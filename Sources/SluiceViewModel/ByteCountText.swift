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

    /// curl's size syntax, as --limit-rate and the UI's limit prompts take it: a whole number of bytes, or one with
    /// a k, m or g suffix (either case; 1024-based; b is bytes). Nil for anything else, or a value past Int64.
    public static func parse(_ text: String) -> Int64? {
        var digits = Substring(text)
        var unit: Int64 = 1
        if let last = digits.last, !last.isNumber {
            switch last {
            case "k", "K": unit = 1 << 10
            case "m", "M": unit = 1 << 20
            case "g", "G": unit = 1 << 30
            case "b", "B": unit = 1
            default: return nil
            }
            digits = digits.dropLast()
        }
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let number = Int64(digits) else { return nil }
        let (bytes, overflow) = number.multipliedReportingOverflow(by: unit)
        return overflow ? nil : bytes
    }
}
