// JSON text by hand, in a fixed key order (files people diff and tests compare), every string escaped.

public enum JSONText {
    /// A string literal: quotes, backslashes and every control character escaped (and U+2028/2029, which end
    /// lines in JavaScript).
    public static func quote(_ text: String) -> String {
        var out = "\""
        out.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where c.value < 0x20 || (0x7F...0x9F).contains(c.value) || c.value == 0x2028 || c.value == 0x2029:
                out += "\\u" + String(c.value, radix: 16).leftPadded(to: 4)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// An object from fields whose values are already JSON, one per line at `indent`.
    static func object(_ fields: [(String, String)], indent: Int) -> String {
        guard !fields.isEmpty else { return "{}" }
        let pad = String(repeating: " ", count: indent + 2)
        return "{\n" + fields.map { pad + quote($0.0) + ": " + $0.1 }.joined(separator: ",\n") + "\n"
            + String(repeating: " ", count: indent) + "}"
    }

    static func array(_ items: [String], indent: Int) -> String {
        guard !items.isEmpty else { return "[]" }
        let pad = String(repeating: " ", count: indent + 2)
        return "[\n" + items.map { pad + $0 }.joined(separator: ",\n") + "\n" + String(repeating: " ", count: indent) + "]"
    }

    /// Milliseconds with three decimals: "12.345"; -1 stays "-1" (HAR's "does not apply").
    static func milliseconds(_ ms: Double) -> String {
        guard ms >= 0, ms.isFinite else { return "-1" }
        let micro = Int64((ms * 1000).rounded())
        return "\(micro / 1000)." + String(micro % 1000).leftPadded(to: 3)
    }
}
