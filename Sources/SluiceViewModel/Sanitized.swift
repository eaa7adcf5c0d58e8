// Makes text from servers and users safe to print on a terminal: no control characters reach it raw.

public enum Sanitized {
    /// Control characters (C0, DEL, C1, including ESC) become visible escapes such as `\x1b`.
    public static func text(_ s: String) -> String {
        // Most text (URLs, names, plain lines) is printable ASCII already: returned as it is, without a copy. Its
        // bytes are checked in place when the string has them in one piece (the view's iterator cost about 18
        // instructions a byte).
        let printable = s.utf8.withContiguousStorageIfAvailable { $0.allSatisfy { $0 >= 0x20 && $0 < 0x7F } }
            ?? s.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
        return printable ? s : escaped(s)
    }

    /// The scalar-by-scalar walk `text` takes for any text that is not all printable ASCII.
    static func escaped(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for scalar in s.unicodeScalars {
            let v = scalar.value
            if v < 0x20 || (0x7F...0x9F).contains(v) {
                out += "\\x" + String(v, radix: 16, uppercase: false).leftPadded(to: 2)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

extension String {
    public func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
