// Theme files: the shipped ones parse completely; a broken one names its file and line.
import Foundation
@testable import SluiceTUI
import Testing

@Suite struct ThemeTests {
    func themesDirectory() -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("themes").path
    }

    @Test(arguments: ["default", "light", "mono"])
    func shippedThemesDefineEveryElement(name: String) throws {
        let theme = try ThemeLoader.load(themesDirectory() + "/\(name).toml")
        for element in Element.allCases { #expect(theme.styles[element] != nil, "\(name) lacks \(element.rawValue)") }
    }

    @Test func monoThemeUsesNoColour() throws {
        let theme = try ThemeLoader.load(themesDirectory() + "/mono.toml")
        #expect(theme.styles.values.allSatisfy { $0.foreground == .default && $0.background == .default })
    }

    @Test func parsesColoursAndAttributes() throws {
        let theme = try ThemeParser.parse("""
            # a comment
            [styles]
            title = "bright-white on blue bold"   # trailing comment
            bar-fill = "green"
            selected = "reverse underline"
            """, name: "t", file: "t.toml")
        #expect(theme.style(.title) == Style(foreground: .brightWhite, background: .blue, bold: true))
        #expect(theme.style(.barFill) == Style(foreground: .green))
        #expect(theme.style(.selected) == Style(underline: true, reverse: true))
        #expect(theme.style(.help) == Style(), "an element left out is plain")
        #expect(theme.monochrome.style(.title) == Style(bold: true))
    }

    @Test(arguments: [
        ("title = \"green\"\nrow-runing = \"red\"", 2, "unknown element \"row-runing\""),
        ("title = \"grene\"", 1, "unknown word \"grene\""),
        ("\n\ntitle = green", 3, "must be a quoted string"),
        ("title = \"red on\"", 1, "`on` needs a colour"),
        ("title = \"red\"\ntitle = \"blue\"", 2, "set twice"),
        ("[colors]", 1, "unknown table"),
        ("title \"red\"", 1, "expected `element = \"style\"`"),
        ("title = \"red blue\"", 1, "two foreground colours"),
    ])
    func brokenFilesNameTheLine(text: String, line: Int, message: String) {
        #expect {
            try ThemeParser.parse(text, name: "bad", file: "themes/bad.toml")
        } throws: { error in
            guard let e = error as? ThemeError else { return false }
            return e.file == "themes/bad.toml" && e.line == line && e.message.contains(message)
        }
    }

    /// A binary copied on its own finds no themes folder: its UI still opens in the default theme, the shipped
    /// file's own (before: "no such theme", exit 1); other themes still need their files.
    @Test func theDefaultThemeIsBuiltIn() throws {
        let shipped = try String(contentsOfFile: themesDirectory() + "/default.toml", encoding: .utf8)
        #expect(BuiltInTheme.defaultText == shipped, "themes/default.toml and the built-in copy differ")
        let builtIn = try ThemeLoader.load("default", from: ["/nonexistent"])
        #expect(builtIn.styles == (try ThemeLoader.load(themesDirectory() + "/default.toml")).styles && builtIn.name == "default")
        #expect(throws: ThemeError.self) { try ThemeLoader.load("light", from: ["/nonexistent"]) }
    }

    @Test func aMissingThemeSaysWhereItLooked() {
        #expect {
            try ThemeLoader.load("no-such-theme")
        } throws: { error in
            (error as? ThemeError)?.message.contains("no-such-theme.toml") == true
        }
    }

    @Test func eightColourTerminalsGetBaseColours() {
        #expect(Color.brightRed.base == .red)
        #expect(Color.green.base == .green)
        #expect(Color.default.base == .default)
    }
}
