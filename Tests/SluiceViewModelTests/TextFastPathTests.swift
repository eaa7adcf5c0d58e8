// The byte-level fast paths for ASCII text (row names, hosts, sanitized lines, file names) give exactly what the
// Character and scalar walks they skip give.
@testable import SluiceViewModel
import Testing

@Suite struct TextFastPathTests {
    /// Strings of characters that mean something to the parsers, from a fixed seed (the same cases every run).
    static func samples(count: Int, alphabet: [String]) -> [String] {
        var seed: UInt64 = 0x5EED
        func next() -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int(seed >> 33)
        }
        return (0..<count).map { _ in (0..<(next() % 24)).map { _ in alphabet[next() % alphabet.count] }.joined() }
    }

    static let urls = [
        "http://127.0.0.1:8080/drip?bytes=40000000&name=x.bin", "https://example.org/files/My%20Report%202024.pdf#page=2",
        "https://example.org/a/b/", "file:///tmp/some/file.iso", "https://user:secret@example.org:8443", "data:text/plain,hi",
        "http://h/download?id=7", "http://h/get?q=%1B[2J", "//h/x", ":x", "://h/p", "h:8080/x", "http:/x", "http://",
        "http://h", "http://h?q#f", "http://h#f?q", "http://a@b@c/x//", "HTTP+x-y.z://h/a?b?c#d#e", "1a://h/x/./..",
    ]

    @Test func urlPartsOfASCIIMatchTheCharacterWalk() {
        let generated = Self.samples(count: 4000, alphabet: ["http", "://", "/", "?", "#", "@", ":", "a", "B", "1", ".", "+", "-",
                                                             "%2F", " ", "\r\n", "h", "x.bin", "//"])
        for url in Self.urls + generated {
            let slow = URLParts(characters: url)
            // The walk over the string's bytes, and the one over a buffer of them with integer offsets.
            for fast in [URLParts(ascii: url), URLParts(url)] {
                #expect(fast.host == slow.host && fast.lastSegment == slow.lastSegment && fast.query == slow.query, "\(url.debugDescription)")
            }
        }
    }

    @Test func nonASCIIURLsTakeTheCharacterWalk() {
        let parts = URLParts("http://例え.jp/ファイル.zip?é")
        #expect(parts.host == "例え.jp" && parts.lastSegment == "ファイル.zip" && parts.query == "é")
    }

    @Test func sanitizedPrintableASCIIIsTheEscapingWalk() {
        let generated = Self.samples(count: 2000, alphabet: ["a", " ", "~", "\u{7F}", "\u{1B}", "\t", "é", "\u{9B}", "x y", "\\"])
        for text in Self.urls + generated {
            #expect(Sanitized.text(text) == Sanitized.escaped(text), "\(text.debugDescription)")
        }
    }

    @Test func cleanPlainASCIINamesIsTheScalarWalk() {
        let generated = Self.samples(count: 4000, alphabet: ["a", ".", " ", "/", "\\", "..", "\u{1B}", "\u{202E}", "x.bin", "~", "é"])
        let long = String(repeating: "n", count: 200), longer = String(repeating: "n", count: 201)
        for name in Self.urls + generated + [long, longer, " a", "a ", ".a", "a.", "", " "] {
            #expect(SafeFileName.clean(name) == SafeFileName.cleanedScalars(name), "\(name.debugDescription)")
        }
    }
}
