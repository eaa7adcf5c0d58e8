// Bracketed paste: what comes between the terminal's paste marks is text for an open prompt, never keys. A tester
// pasted a URL with ESC sequences in it: the ESC closed the prompt and the rest ran as commands (`J` opened, and
// `x` would have removed a row from the history without asking).
import SluiceEngine
import SluiceTUI
import SluiceViewModel
import Testing

@Suite struct PasteKeyTests {
    func press(_ keys: [Key], ui: inout UIState, model: inout Model) -> [UICommand] {
        keys.flatMap { KeyHandler.handle($0, ui: &ui, model: &model) }
    }

    /// `text` as curses hands it over between the marks: ESC alone, the rest as characters, a line break as Enter.
    func pasted(_ text: String) -> [Key] {
        [.pasteStart] + text.map { c -> Key in c == "\u{1B}" ? .escape : c == "\r" ? .enter : .character(c) } + [.pasteEnd]
    }

    @Test func anEscapeSequenceInPastedTextStaysInThePrompt() {
        var ui = UIState(), m = sampleModel()
        m.select(3)
        let commands = press([.character("a")] + pasted("http://127.0.0.1:1/\u{1B}]52;c;SGFja2Vk\u{07}\u{1B}[2Jxx"), ui: &ui, model: &m)
        #expect(commands.isEmpty)
        #expect(ui.mode == .prompt(.addURL, "http://127.0.0.1:1/]52;c;SGFja2Vk[2Jxx"), "\(ui.mode)")
        #expect(press([.enter], ui: &ui, model: &m) == [.intent(.add("http://127.0.0.1:1/]52;c;SGFja2Vk[2Jxx", .data))],
                "typed Enter submits what was pasted")
    }

    @Test func aPastedLineBreakNeverSubmitsAndACommandsLinesJoin() {
        var ui = UIState(), m = sampleModel()
        _ = press([.character("a")] + pasted("curl 'http://h/f' \\\r  -H 'A: b'\rmore"), ui: &ui, model: &m)
        #expect(ui.mode == .prompt(.addURL, "curl 'http://h/f'    -H 'A: b' more"), "\(ui.mode)")
    }

    @Test func pastedTextOutsideAPromptDoesNothing() {
        var ui = UIState(), m = sampleModel()
        m.select(3)
        let before = m
        #expect(press(pasted("xXcsrdqQ\u{1B}J5\r"), ui: &ui, model: &m).isEmpty)
        #expect(ui.mode == .normal && !ui.pasting)
        #expect(m == before)
        #expect(ui.message?.contains("press a, then paste") == true)
        #expect(press([.character("s")], ui: &ui, model: &m) == [.intent(.suspend(3))], "typed keys work again after")
    }
}
