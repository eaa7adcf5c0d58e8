// The URL list of -i FILE: each line's first word; blank lines, comments and any line ending are skipped.
import Foundation
@testable import SluiceCLI
import Testing

@Suite struct URLListTests {
    /// Standard input is read once: `-i -` with a body from `@-` is refused before anything is read (the body went
    /// empty; found by a tester).
    @Test func aListAndABodyCannotBothComeFromStandardInput() async {
        for body in [["-d", "@-"], ["--data-binary", "@-"], ["--data-urlencode", "q@-"], ["--json", "@-"], ["-H", "@-"]] {
            let failure = await runGet(["-i", "-"] + body)
            #expect(failure?.code == 2 && failure?.message.contains("both read standard input") == true, "\(body): \(failure?.message ?? "")")
        }
    }

    @Test func eachLineGivesItsFirstWord() {
        let text = "http://a/1\n  https://b/2 trailing words\r\n\tfile:///c\rdata:,x\t# not a comment here"
        #expect(URLList.urls(in: Data(text.utf8)) == ["http://a/1", "https://b/2", "file:///c", "data:,x"])
    }

    @Test func blankAndCommentLinesAreSkipped() {
        let text = "\n\r\n   \n# a comment\n  #indented comment\nhttp://a/#fragment\n\t \r\nhttp://b/"
        #expect(URLList.urls(in: Data(text.utf8)) == ["http://a/#fragment", "http://b/"])
    }

    @Test func emptyInputGivesNoURL() {
        #expect(URLList.urls(in: Data()).isEmpty)
        #expect(URLList.urls(in: Data("\n \t\r\n".utf8)).isEmpty)
    }

    @Test func nonASCIIBytesAreKept() {
        let text = "http://h/caf\u{E9}\nhttp://h/x"
        #expect(URLList.urls(in: Data(text.utf8)) == ["http://h/caf\u{E9}", "http://h/x"])
    }

    /// aria2's per-URL option lines (indented `name=value`) are passed over and counted, not refused as URLs; an
    /// indented URL with a query is still a URL.
    @Test func aria2OptionLinesArePassedOver() {
        let text = "http://a/1\n  out=renamed.bin\n\tdir=/tmp\n  http://b/?x=1\nc=d\n"
        let (urls, options) = URLList.scan(Data(text.utf8))
        #expect(urls == ["http://a/1", "http://b/?x=1", "c=d"], "not indented: a URL to check, and refuse")
        #expect(options == 2)
    }

    /// A URL the list cannot give is named by its file and line, the whole line quoted.
    @Test func aRefusedLineIsNamedByItsNumber() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let list = dir.path + "/l2.txt"
        try Data("http://127.0.0.1/11\n# note\nhtp://typo.example/x\nnot a url at all\n".utf8).write(to: URL(fileURLWithPath: list))
        let texts = try URLList.read(list)
        do {
            _ = try URLTargets(["http://h/arg"] + texts, list: list, listStart: 1)
            Issue.record("accepted")
        } catch let failure as CLIFailure {
            #expect(failure.message == "\(list):3: not a URL sluice can fetch: htp://typo.example/x (nothing was fetched; fix or remove the line)")
        }
        #expect(URLTargets.refused("not", inList: list).message.hasPrefix("\(list):4: not a URL sluice can fetch: not a url at all"))
        #expect(URLTargets.refused("ftp://x", inList: nil).message == "not a URL sluice can fetch: ftp://x")
    }

    /// The byte scan gives what splitting into lines, then each line into words, gave (the former reader).
    @Test func agreesWithSplittingLinesThenWords() {
        let alphabet: [UInt8] = Array("ab# \t\r\n".utf8)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15  // a fixed seed: the same inputs every run
        for _ in 0..<2_000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int(state % 24) {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                bytes.append(alphabet[Int(state >> 33) % alphabet.count])
            }
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let expected = bytes.split(whereSeparator: { $0 == 10 || $0 == 13 }).compactMap { line -> String? in
                guard let word = line.split(whereSeparator: { $0 == 32 || $0 == 9 }).first, word.first != 35 else { return nil }
                return String(decoding: word, as: UTF8.self)
            }
            #expect(URLList.urls(in: Data(bytes)) == expected, "\(bytes)")
        }
    }
}
