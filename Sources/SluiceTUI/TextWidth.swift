// Terminal columns of text: wide characters (CJK, emoji) take two, combining marks none. Measured, not assumed.
import CNcurses
import SluiceViewModel
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

    /// At most `width` columns of `text`, cut in the middle: names differ at their ends ("report-v2.pdf",
    /// "f00412"), so the start and the end are kept, the end with the larger share.
    public static func middle(_ text: String, to width: Int) -> String {
        guard width > 0 else { return "" }
        let scalars = Array(text.unicodeScalars)
        let widths = scalars.map(of)
        if widths.reduce(0, +) <= width { return text }
        if width < 4 { return truncate(text, to: width) }
        let headRoom = (width - 1) / 3
        var head = String.UnicodeScalarView(), used = 0, i = 0
        while i < scalars.count, used + widths[i] <= headRoom {
            head.append(scalars[i])
            used += widths[i]
            i += 1
        }
        var tailRoom = width - 1 - used, j = scalars.count
        while j > i, widths[j - 1] <= tailRoom {
            tailRoom -= widths[j - 1]
            j -= 1
        }
        // A combining mark kept at the tail's start would sit on the ellipsis: drop it.
        while j < scalars.count, widths[j] == 0 { j += 1 }
        return String(head) + "…" + String(String.UnicodeScalarView(scalars[j...]))
    }

    /// `text` in lines of at most `width` columns, broken after a space where one is near, else anywhere (a URL
    /// has no spaces); never splits a wide character. Past `maxLines` the last line ends in "…" (a data: URL can
    /// be megabytes long, and this runs every frame).
    public static func wrap(_ text: String, to width: Int, maxLines: Int = 16) -> [String] {
        guard width > 0, maxLines > 0 else { return [] }
        var lines: [String] = []
        var line = String.UnicodeScalarView(), used = 0
        var lastSpace: (index: String.UnicodeScalarView.Index, used: Int)?
        for scalar in text.unicodeScalars {
            let w = of(scalar)
            if used + w > width {
                if lines.count == maxLines - 1 {
                    lines.append(truncate(String(line) + "…", to: width))
                    return lines
                }
                if let space = lastSpace, space.used >= width / 2 {
                    let rest = line[line.index(after: space.index)...]
                    lines.append(String(line[..<space.index]))
                    line = String.UnicodeScalarView(rest)
                    used -= space.used + 1
                } else {
                    lines.append(String(line))
                    line = String.UnicodeScalarView()
                    used = 0
                }
                lastSpace = nil
            }
            if scalar == " " { lastSpace = (line.endIndex, used) }
            line.append(scalar)
            used += w
        }
        if !line.isEmpty || lines.isEmpty { lines.append(String(line)) }
        return lines
    }

    /// `text` in at most `width` columns, its end kept: "…" and the last columns that fit (a prompt's cursor end).
    public static func keepingEnd(_ text: String, to width: Int) -> String {
        guard width > 0 else { return "" }
        guard of(text) > width else { return text }
        var tail = String.UnicodeScalarView()
        var used = 1  // the ellipsis
        for scalar in text.unicodeScalars.reversed() {
            let w = of(scalar)
            if used + w > width { break }
            tail.append(scalar)
            used += w
        }
        return "…" + String(String.UnicodeScalarView(tail.reversed()))
    }

    /// Exactly `width` columns: cut with "…" or padded with spaces (on the right, or the left for numbers).
    public static func fit(_ text: String, to width: Int, alignRight: Bool = false) -> String {
        let cut = truncate(text, to: width)
        let pad = RepeatedText.of(" ", count: width - of(cut))
        return alignRight ? pad + cut : cut + pad
    }
}
