// Text shown to users: sanitizing server text, byte counts.
import SluiceViewModel
import Testing

@Suite struct SanitizedTests {
    @Test func controlCharactersBecomeVisible() {
        #expect(Sanitized.text("a\u{1B}[31mb\r\n\u{9B}c") == "a\\x1b[31mb\\x0d\\x0a\\x9bc")
        #expect(Sanitized.text("plain ünïcode 漢字") == "plain ünïcode 漢字")
    }
}

@Suite struct ByteCountTextTests {
    @Test func units() {
        #expect(ByteCountText.format(512) == "512 B")
        #expect(ByteCountText.format(1536) == "1.5 KiB")
        #expect(ByteCountText.format(1 << 30) == "1.0 GiB")
        #expect(ByteCountText.format(300 << 20) == "300 MiB")
    }
}
