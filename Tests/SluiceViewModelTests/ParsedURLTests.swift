// The byte-level check of a plain web URL: whatever it accepts, Foundation's parser accepts too, as the same text.
import Foundation
import SluiceViewModel
import Testing

@Suite struct ParsedURLTests {
    @Test func theURLsListsHoldArePlainAndParseToThemselves() throws {
        for text in [
            "http://127.0.0.1:18080/many/f000001", "https://example.org/", "https://example.org",
            "HTTPS://Example.ORG:443/a/b.c?x=1&y=%2F;z=(a)*,b'!$~_-", "http://h:1/", "http://a-b.c-d.e/x@y:z",
            "http://localhost?q", "https://cdn.example.net/files/report-2026.pdf?sig=9f8e7d&exp=1799999999",
        ] {
            #expect(ParsedURL.isPlainWeb(text), "\(text)")
            let url = try #require(ParsedURL.parse(text))
            #expect(url.absoluteString == text)
        }
    }

    /// A URL typed without its scheme is http, as curl and wget take it (`sluice get example.org/f`); what cannot
    /// be a host stays refused.
    @Test func aURLWithoutItsSchemeIsHTTP() {
        for (text, expected) in [
            ("127.0.0.1:18199/bytes/5", "http://127.0.0.1:18199/bytes/5"), ("www.example.com", "http://www.example.com"),
            ("localhost:8080/x?y=1", "http://localhost:8080/x?y=1"), ("example.org/a b", ParsedURL.parse("http://example.org/a b")?.absoluteString), ("mailto:someone", nil),
            ("htp://typo.example/x", nil), ("ftp://h/x", nil), ("./x", nil), ("/tmp/x", nil), ("", nil), (":80/x", nil),
            ("-h", nil), ("h:port/x", nil), ("hsitory", nil), ("localhost", "http://localhost"), ("intranet/x", "http://intranet/x"),
            ("intranet:8080", "http://intranet:8080"),
        ] as [(String, String?)] {
            #expect(ParsedURL.parse(text)?.absoluteString == expected, "\(text)")
        }
        #expect(ParsedURL.parse("data:,x")?.absoluteString == "data:,x" && ParsedURL.parse("file:///tmp/x") != nil)
    }

    @Test func anythingUnusualIsLeftToTheParser() {
        for text in [
            "", "http://", "http:///x", "http://-a/", "http://.a/", "http://user@h/", "http://h/#top", "http://h/a b",
            "http://[::1]/", "http://h:/", "http://h:65536/", "http://h:123456/", "http://h/%zz", "http://h/%4",
            "ftp://h/", "file:///tmp/x", "data:,x", "//h/x", "h/x", "http://h_h/", "http://h/\u{e9}", "http://h/a\"b",
            "http://h/<x>", "http://h\\x", "http://h/{x}", "http://h/x|y", "http:/h/x",
        ] {
            #expect(!ParsedURL.isPlainWeb(text), "\(text)")
        }
    }

    /// Forty thousand texts pieced together from schemes, hosts, ports, paths and awkward characters: each one the
    /// check accepts must parse, to itself; and the mix holds enough of both kinds that this proves something.
    @Test func whatTheCheckAcceptsFoundationAcceptsToo() throws {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        func pick(_ options: [String]) -> String { options[next(options.count)] }
        // Mostly what a plain URL may hold, now and then what it may not.
        let hostCharacters = Array("abcXYZ019.-abcXYZ019.-_~%:@[]")
        let pathCharacters = Array("azAZ09-._~!$&'()*+,;=:@/?%azAZ09-._~!$&'()*+,;=:@/?%azAZ09/#[] \"<>\\^`{|}\u{7f}é")
        var plain = 0
        var other = 0
        for _ in 0..<40_000 {
            var text = pick(["http://", "https://", "HtTp://", "http://", "https://", "http:/", "ftp://", "", "http://u@"])
            text += pick(["example.org", "127.0.0.1", "a", "h-1.example"])
            for _ in 0..<next(4) { text.append(hostCharacters[next(hostCharacters.count)]) }
            text += pick(["", "", "", ":80", ":65535", ":65536", ":", ":0"])
            for _ in 0..<next(10) {
                let c = pathCharacters[next(pathCharacters.count)]
                text.append(c)
                if c == "%" { text += pick(["41", "4", "zz", "2F", ""]) }
            }
            if ParsedURL.isPlainWeb(text) {
                plain += 1
                let url = try #require(ParsedURL.parse(text), "\(text)")
                #expect(url.absoluteString == text)
            } else {
                other += 1
            }
        }
        #expect(plain > 1_500 && other > 2_000, "plain \(plain), other \(other)")
    }
}
