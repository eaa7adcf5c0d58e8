// get -v's lines: curl -v's prefixes, and no control character from a server reaching the terminal.
import SluiceEngine
import Testing
@testable import SluiceCLI

@Suite struct VerboseLogTests {
    @Test func eachKindHasCurlsPrefix() {
        #expect(VerboseLog.text(of: WireLine(.info, "  Trying 127.0.0.1:80...")) == "*   Trying 127.0.0.1:80...\n")
        #expect(VerboseLog.text(of: WireLine(.headerOut, "GET / HTTP/1.1")) == "> GET / HTTP/1.1\n")
        #expect(VerboseLog.text(of: WireLine(.headerIn, "")) == "< \n")
    }

    @Test func aServersEscapeSequenceIsNotWritten() {
        let text = VerboseLog.text(of: WireLine(.headerIn, "X-Evil: \u{1B}]0;owned\u{07}\u{1B}[2J"))
        #expect(text.hasPrefix("< X-Evil: "))
        #expect(!text.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" }, "\(text.debugDescription)")
    }
}
