// Terminal columns of text: wide characters (CJK, emoji) take two, combining marks none. Measured, not assumed.
import CNcurses
#if canImport(Glibc)
import Glibc
#endif

public enum TextWidth {
    /// wcwidth needs a UTF-8 LC_CTYPE; the program sets one before curses starts, tests get it here.
    private static let ready: Bool = {
        let current = setlocale(LC_CTYPE, nil).map { String(cString: $0) } ?? "C"
        if !current.uppercased().contains("UTF-8") && !current.uppercased().contains("UTF8") {
            _ = setlocale(LC_CTYPE, "C.UTF-8")
        }
        return true
    }()

    public static func of(_ scalar: Unicode.Scalar) -> Int {
        _ = ready
        if scalar.value < 0x7F { return scalar.value < 0x20 ? 0 : 1 }
        let w = sluice_wcwidth(scalar.value)
        return w < 0 ? 1 : Int(w)
    }

    public static func of(_ text: String) -> Int { text.unicodeScalars.reduce(0) { $0 + of($1) } }

    /// At most `width` columns of `text`, with "…" marking a cut; never splits a wide character.
    public static func truncate(_ text: String, to width: Int) -> String {
        guard width > 0 else { return "" }
        if of(text) <= width { return text }
        var out = String.UnicodeScalarView()
        var used = 0
        for scalar in text.unicodeScalars {
            let w = of(scalar)
            if used + w > width - 1 { break }
            out.append(scalar)
            used += w
        }
        return String(out) + "…"
    }

    /// Exactly `width` columns: cut with "…" or padded with spaces (on the right, or the left for numbers).
    public static func fit(_ text: String, to width: Int, alignRight: Bool = false) -> String {
        let cut = truncate(text, to: width)
        let pad = String(repeating: " ", count: max(0, width - of(cut)))
        return alignRight ? pad + cut : cut + pad
    }
}
