// Theme files: a small TOML subset, one `element = "words"` per line, read whole before anything is drawn.
//
//     # comments, and an optional [styles] table header
//     row-running = "green bold"
//     title = "bright-white on blue bold"
//
// Words: a foreground colour, `on` and a background colour, and any of bold, dim, underline, reverse.

// The fuzz harness (scripts/fuzz) compiles this file with TOMLSubset.swift in one module of its own.
#if canImport(SluiceViewModel)
import SluiceViewModel
#endif

public struct ThemeError: Error, Equatable, CustomStringConvertible {
    public let file: String
    public let line: Int
    public let message: String
    public var description: String { "\(file):\(line): \(message)" }
}

public enum ThemeParser {
    public static func parse(_ text: String, name: String, file: String) throws(ThemeError) -> Theme {
        var styles: [Element: Style] = [:]
        // The lines are read by the lexer the config file shares; the messages stay the theme's own.
        for (number, raw) in TOMLSubset.lines(text).enumerated() {
            func fail(_ message: String) -> ThemeError { ThemeError(file: file, line: number + 1, message: message) }
            let key: String, value: String
            switch TOMLSubset.classify(raw) {
            case .blank: continue
            case .header(let path) where path == ["styles"]: continue
            case .header: throw fail("unknown table \(TOMLSubset.stripComment(raw).trimmingBlanks()); only [styles] is known")
            case .other(let line) where line.hasPrefix("["): throw fail("unknown table \(line); only [styles] is known")
            case .other(let line): throw fail("expected `element = \"style\"`, found \"\(line)\"")
            case .pair(let k, let v): (key, value) = (k, v)
            }
            guard let element = Element(rawValue: key) else {
                throw fail("unknown element \"\(key)\"; known: \(Element.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            guard value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") else {
                throw fail("the style of \(key) must be a quoted string")
            }
            guard styles[element] == nil else { throw fail("\(key) is set twice") }
            do throws(StyleError) {
                styles[element] = try style(String(value.dropFirst().dropLast()))
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
}
