// Inputs the fuzz harness Fuzz/theme found to break the theme parser's properties, kept so each stays fixed.
import SluiceTUI
import Testing

@Suite struct ThemeFuzzRegressionTests {
    /// Found by Fuzz/theme: Swift reads "\r\n" as one Character, so splitting on "\n" kept a CRLF file in one line
    /// and every theme saved with Windows line ends was refused ("must be a quoted string").
    @Test func crlfLineEndsReadAsLF() throws {
        let lf = "# a comment\n[styles]\ntitle = \"bright-white on blue bold\"   # trailing comment\nbar-fill = \"green\"\n"
        let crlf = lf.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\r\n")
        let expected = try ThemeParser.parse(lf, name: "t", file: "t.toml")
        #expect(try ThemeParser.parse(crlf, name: "t", file: "t.toml") == expected)
        #expect {
            try ThemeParser.parse("title = \"green\"\r\nrow-runing = \"red\"\r\n", name: "t", file: "t.toml")
        } throws: { error in
            (error as? ThemeError)?.line == 2
        }
    }
}
