// Whether the sequence view may draw box-drawing characters: decided by the locale the user set, as setlocale reads it.
import SluiceTUI
import Testing

@Suite struct TerminalLocaleTests {
    @Test func theFirstSetVariableDecidesAndNoneIsTheCLocale() {
        #expect(TerminalLocale.isUTF8(["LANG": "en_US.UTF-8"]))
        #expect(TerminalLocale.isUTF8(["LANG": "C.utf8"]))
        #expect(!TerminalLocale.isUTF8(["LANG": "C"]))
        #expect(!TerminalLocale.isUTF8([:]), "nothing set is the C locale")
        #expect(!TerminalLocale.isUTF8(["LC_ALL": "POSIX", "LANG": "en_US.UTF-8"]), "LC_ALL wins")
        #expect(TerminalLocale.isUTF8(["LC_ALL": "", "LC_CTYPE": "de_DE.UTF-8", "LANG": "C"]), "an empty one does not count")
        #expect(!TerminalLocale.isUTF8(["LC_CTYPE": "en_US.ISO-8859-1", "LANG": "en_US.UTF-8"]))
    }
}
