// Under a locale that is not UTF-8 (or the mono theme) the screen's own glyphs are ASCII of the same width.
import SluiceTUI
import SluiceViewModel
import Testing

@Suite struct AsciiGlyphTests {
    private func screen(ascii: Bool) -> [String] {
        var ui = UIState()
        ui.asciiArt = ascii
        return Renderer.render(model: sampleModel(), ui: ui, width: 120, height: 40).map(\.text)
    }

    @Test func theDemoScreenIsPureASCIIWhenAsked() {
        let lines = screen(ascii: true)
        // The sample's names and URLs are ASCII, so every byte on screen is.
        for line in lines { #expect(line.utf8.allSatisfy { $0 < 0x80 }, "\(line)") }
        #expect(lines.contains { $0.contains("#") && $0.contains("-") })  // a bar, filled and empty
    }

    @Test func itKeepsEveryLinesWidthAndUnicodeOtherwise() {
        let unicode = screen(ascii: false)
        let ascii = screen(ascii: true)
        #expect(unicode.contains { $0.contains("█") || $0.contains("░") })
        #expect(zip(unicode, ascii).allSatisfy { TextWidth.of($0) == TextWidth.of($1) })
    }

    @Test func serverTextIsLeftAsItIs() {
        let line = StyledLine([Span("naïve.bin ", .help), Span("██░░", .barFill)])
        #expect(line.asciiGlyphs().text == "naïve.bin ##--")
    }
}
