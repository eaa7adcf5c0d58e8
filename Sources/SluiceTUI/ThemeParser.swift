// Theme files: a small TOML subset, one `element = "words"` per line, read whole before anything is drawn.
//
//     # comments, and an optional [styles] table header
//     row-running = "green bold"
//     title = "bright-white on blue bold"
//
// Words: a foreground colour, `on` and a background colour, and any of bold, dim, underline, reverse.

public struct ThemeError: Error, Equatable, CustomStringConvertible {
    public let file: String
    public let line: Int
    public let message: String
    public var description: String { "\(file):\(line): \(message)" }
}

public enum ThemeParser {
    public static func parse(_ text: String, name: String, file: String) throws(ThemeError) -> Theme {
        var styles: [Element: Style] = [:]
        // "\r\n" is one Character to Swift, so CRLF files need it named as a line end of its own.
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        for (number, raw) in lines.enumerated() {
            func fail(_ message: String) -> ThemeError { ThemeError(file: file, line: number + 1, message: message) }
            let line = stripComment(raw).trimmingBlanks()
            if line.isEmpty || line == "[styles]" { continue }
            if line.hasPrefix("[") { throw fail("unknown table \(line); only [styles] is known") }
            let pair = line.split(separator: "=", maxSplits: 1).map { $0.trimmingBlanks() }
            guard pair.count == 2 else { throw fail("expected `element = \"style\"`, found \"\(line)\"") }
            guard let element = Element(rawValue: pair[0]) else {
                throw fail("unknown element \"\(pair[0])\"; known: \(Element.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            guard pair[1].count >= 2, pair[1].hasPrefix("\""), pair[1].hasSuffix("\"") else {
                throw fail("the style of \(pair[0]) must be a quoted string")
            }
            guard styles[element] == nil else { throw fail("\(pair[0]) is set twice") }
            do throws(StyleError) {
                styles[element] = try style(String(pair[1].dropFirst().dropLast()))
            } catch {
                throw fail(error.message)
            }
        }
        return Theme(name: name, styles: styles)
    }

    struct StyleError: Error { let message: String }

    static func style(_ words: String) throws(StyleError) -> Style {
        var style = Style()
        var expectBackground = false
        var sawForeground = false
        for word in words.split(separator: " ").map(String.init) {
            if expectBackground {
                guard let color = Color(rawValue: word) else { throw StyleError(message: "unknown colour \"\(word)\" after on") }
                style.background = color
                expectBackground = false
                continue
            }
            switch word {
            case "on": expectBackground = true
            case "bold": style.bold = true
            case "dim": style.dim = true
            case "underline": style.underline = true
            case "reverse": style.reverse = true
            default:
                guard let color = Color(rawValue: word) else {
                    throw StyleError(message: "unknown word \"\(word)\"; colours: \(Color.allCases.map(\.rawValue).joined(separator: ", ")); "
                                     + "attributes: bold, dim, underline, reverse")
                }
                guard !sawForeground else { throw StyleError(message: "two foreground colours; use `on` before the background") }
                style.foreground = color
                sawForeground = true
            }
        }
        if expectBackground { throw StyleError(message: "`on` needs a colour after it") }
        return style
    }

    /// Drops a `#` comment that is not inside quotes.
    private static func stripComment(_ line: Substring) -> Substring {
        var quoted = false
        for i in line.indices {
            if line[i] == "\"" { quoted.toggle() }
            if line[i] == "#" && !quoted { return line[..<i] }
        }
        return line
    }
}

extension StringProtocol {
    func trimmingBlanks() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" || f == "\r" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\r" { s = s.dropLast() }
        return String(s)
    }
}
