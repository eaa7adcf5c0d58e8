// The one file that calls curses: start and restore the terminal, draw styled lines, read keys.
import CNcurses
#if canImport(Glibc)
import Glibc
#endif

public final class Screen {
    private var attributes: [Element: Int32] = [:]
    private var stopped = false
    private var screen: OpaquePointer?

    public struct StartError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Takes over the terminal (alternate screen, no echo, keys decoded). `useColor` false draws attributes only.
    public init(theme: Theme, useColor: Bool) throws(StartError) {
        sluice_guard_terminal()  // before curses changes the modes it saves
        guard let term = sluice_curses_start() else {  // loads the library, then takes the terminal
            sluice_unguard_terminal()
            throw StartError(description: String(cString: sluice_curses_failure()))
        }
        screen = term
        _ = sluice_curses_cbreak()
        _ = sluice_curses_noecho()
        _ = sluice_curses_nonl()
        _ = sluice_curses_keypad(true)
        _ = sluice_curses_curs_set(0)
        _ = sluice_curses_set_escdelay(25)
        // Home and End as terminals other than the one TERM names send them (tmux and screen: ESC [1~ and ESC [4~;
        // rxvt: ESC [7~ and ESC [8~; some xterms in normal mode: ESC [H and ESC [F), so the keys work everywhere.
        for (sequence, key) in [("\u{1B}[1~", KEY_HOME), ("\u{1B}[7~", KEY_HOME), ("\u{1B}[H", KEY_HOME),
                                ("\u{1B}[4~", KEY_END), ("\u{1B}[8~", KEY_END), ("\u{1B}[F", KEY_END)] {
            _ = sluice_curses_define_key(sequence, key)
        }
        // Bracketed paste: a terminal that knows it marks pasted text, so that an escape sequence or a line break
        // in it is text for the prompt, never a key (a tester's paste with ESC in it ran its letters as commands).
        _ = sluice_curses_define_key("\u{1B}[200~", Self.pasteStartCode)
        _ = sluice_curses_define_key("\u{1B}[201~", Self.pasteEndCode)
        Self.send("\u{1B}[?2004h")
        configure(theme: theme, useColor: useColor && sluice_curses_has_colors())
    }

    /// Key codes of our own for the paste marks, past every code curses defines (KEY_MAX is 0777).
    private static let pasteStartCode: Int32 = 0o1001
    private static let pasteEndCode: Int32 = 0o1002

    /// A mode sequence to the terminal, after what curses has buffered.
    private static func send(_ sequence: String) {
        fflush(nil)  // every stream: curses writes through stdout's
        _ = sequence.utf8CString.withUnsafeBufferPointer { write(STDOUT_FILENO, $0.baseAddress, $0.count - 1) }
    }

    deinit { stop() }

    private func configure(theme: Theme, useColor: Bool) {
        if useColor {
            _ = sluice_curses_start_color()
            _ = sluice_curses_use_default_colors()
        }
        let eightColors = sluice_curses_colors() < 16
        for (i, element) in Element.allCases.enumerated() {
            var style = useColor ? theme.style(element) : theme.style(element).monochrome
            var attr = sluice_a_normal()
            if useColor {
                if eightColors && (style.foreground.number >= 8) { style.bold = true }
                let fg = eightColors ? style.foreground.base : style.foreground
                let bg = eightColors ? style.background.base : style.background
                _ = sluice_curses_init_pair(Int16(i + 1), Int16(fg.number), Int16(bg.number))
                attr |= sluice_color_pair(Int32(i + 1))
            }
            if style.bold { attr |= sluice_a_bold() }
            if style.dim { attr |= sluice_a_dim() }
            if style.underline { attr |= sluice_a_underline() }
            if style.reverse { attr |= sluice_a_reverse() }
            attributes[element] = attr
        }
    }

    public var size: (width: Int, height: Int) { (Int(sluice_curses_cols()), Int(sluice_curses_lines())) }

    /// Draws every line from column 0; the renderer made each exactly as wide as the screen.
    public func draw(_ lines: [StyledLine]) {
        for (y, line) in lines.enumerated() {
            var x: Int32 = 0
            for span in line.spans where !span.text.isEmpty {
                _ = sluice_curses_attrset(attributes[span.element] ?? sluice_a_normal())
                _ = sluice_curses_mvaddstr(Int32(y), x, span.text)
                x += Int32(TextWidth.of(span.text))
            }
        }
        _ = sluice_curses_attrset(sluice_a_normal())
        _ = sluice_curses_refresh()
    }

    /// The next key, or nil when none came within `milliseconds`.
    public func readKey(milliseconds: Int32) -> Key? {
        sluice_curses_timeout(milliseconds)
        var c: wint_t = 0
        let kind = sluice_curses_get_wch(&c)
        if kind == sluice_key_code_yes() {
            switch Int32(c) {
            case sluice_key_resize(): return .resize
            case sluice_key_up(): return .up
            case sluice_key_down(): return .down
            case sluice_key_left(): return .left
            case sluice_key_right(): return .right
            case sluice_key_ppage(): return .pageUp
            case sluice_key_npage(): return .pageDown
            case KEY_HOME: return .home
            case KEY_END: return .end
            case sluice_key_backspace(): return .backspace
            case sluice_key_enter(): return .enter
            case sluice_key_btab(): return .tab
            case Self.pasteStartCode: return .pasteStart
            case Self.pasteEndCode: return .pasteEnd
            default: return nil
            }
        }
        guard kind == OK else { return nil }
        switch c {
        case 9: return .tab
        case 10, 13: return .enter
        case 27: return .escape
        case 8, 127: return .backspace
        default:
            guard let scalar = Unicode.Scalar(UInt32(c)) else { return nil }
            return .character(Character(scalar))
        }
    }

    /// Gives the terminal back as it was (main screen, echo, cursor). Safe to call more than once.
    public func stop() {
        guard !stopped else { return }
        stopped = true
        _ = sluice_curses_curs_set(1)
        Self.send("\u{1B}[?2004l")
        sluice_curses_stop(screen)
        screen = nil
        sluice_unguard_terminal()
    }

    /// Picks the user's locale, or a UTF-8 one when the user's cannot show wide characters.
    public static func prepareLocale() {
        _ = setlocale(LC_ALL, "")
        let codeset = String(cString: sluice_codeset()).uppercased()
        if codeset != "UTF-8" && codeset != "UTF8" { _ = setlocale(LC_ALL, "C.UTF-8") }
    }
}
