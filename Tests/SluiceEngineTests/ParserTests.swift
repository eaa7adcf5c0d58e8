// Pure parsers: header lines, media-type parameters, data: URLs, multipart splitting, libcurl error codes.
import Foundation
import Testing
@testable import SluiceEngine

@Suite struct HeaderLineParserTests {
    @Test func parsesStatusAndFieldsInOrder() {
        var p = HeaderLineParser()
        for line in ["HTTP/1.1 206 Partial Content\r\n", "Content-Type: text/plain\r\n", "X-A:  1 \r\n", "x-a: 2\r\n", "\r\n"] {
            p.feed(line: line)
        }
        #expect(p.statusCode == 206)
        #expect(p.reasonPhrase == "Partial Content")
        #expect(p.fields["content-type"] == "text/plain")
        #expect(p.fields["X-A"] == "1, 2")
        #expect(p.isComplete)
    }

    @Test func namesMatchIgnoringTheCaseOfLettersOnly() {
        #expect("Content-Length".caseInsensitiveEquals("content-LENGTH"))
        #expect(!"X-@".caseInsensitiveEquals("x-`"), "@ and ` differ by the case bit but are no letters")
        #expect(!"X-[".caseInsensitiveEquals("x-{"))
        #expect(!"X-A".caseInsensitiveEquals("X-AB") && !"X-A".caseInsensitiveEquals("X-B"))
        #expect("Ca\u{E9}".caseInsensitiveEquals("cA\u{E9}") && !"\u{E9}".caseInsensitiveEquals("\u{C9}"))
        let long = String(repeating: "Header-Name-", count: 4)  // longer than a small string's 15 bytes
        #expect(long.caseInsensitiveEquals(long.uppercased()) && !long.caseInsensitiveEquals(long.uppercased() + "X"))
        let headers: HTTPHeaders = ["Vary": "a", "X": "1", "vary": "b"]
        #expect(headers["VARY"] == "a, b" && headers["x"] == "1" && headers["Y"] == nil)
    }

    /// curl -I prints the status line's words; a blank or missing phrase (RFC 9112 allows both) is none.
    @Test func theReasonPhraseIsKeptAsSent() {
        func phrase(_ line: String) -> String? {
            var p = HeaderLineParser()
            p.feed(line: line)
            return p.reasonPhrase
        }
        #expect(phrase("HTTP/1.1 404 Not Found\r\n") == "Not Found")
        #expect(phrase("HTTP/1.1 200  OK  \r\n") == "OK")
        #expect(phrase("HTTP/1.1 200 \r\n") == nil)
        #expect(phrase("HTTP/1.1 200\r\n") == nil)
        #expect(phrase("HTTP/1.1 418 I'm a teapot, really a very long one\r\n") == "I'm a teapot, really a very long one")
        #expect(phrase("HTTP/1.1 abc Nope\r\n") == nil, "no status, no phrase")
    }

    @Test func aNewStatusLineStartsOver() {
        var p = HeaderLineParser()
        p.feed(line: "HTTP/1.1 302 Found\r\n")
        p.feed(line: "Location: /x\r\n")
        p.feed(line: "\r\n")
        p.feed(line: "HTTP/2 200\r\n")
        p.feed(line: "A: b\r\n")
        #expect(p.statusCode == 200)
        #expect(p.reasonPhrase == nil, "HTTP/2 has no reason phrase; the 302's is gone with its block")
        #expect(p.fields["Location"] == nil)
        #expect(p.fields["A"] == "b")
        #expect(!p.isComplete)
    }

    @Test func foldedLinesJoinThePreviousField() {
        var p = HeaderLineParser()
        p.feed(line: "HTTP/1.0 200 OK")
        p.feed(line: "X-Long: one")
        p.feed(line: "\t two")
        #expect(p.fields["X-Long"] == "one two")
    }

    @Test func namesKeepTheirSpellingWhetherCommonOrNot() {
        // Common names come from a table of literals; every name must still be exactly the bytes sent (trimmed).
        let names = ["date", "Date", "DATE", "etag", "ETag", "Etag", "server", "Server", "content-type", "Content-Type",
                     "content-typ", "content-types", "last-modified", "Last-Modified", "accept-ranges", "cache-control",
                     "content-length", "Content-Length", "CONTENT-LENGTH", "content-encoding", "transfer-encoding",
                     "Transfer-Encoding", "set-cookie", "Set-Cookie", "connection", "keep-alive", "location", "Location",
                     "vary", "Vary", "expires", "x-date", "dat", "d\u{E9}te", " date", "date ", "\tetag"]
        for name in names {
            var p = HeaderLineParser()
            p.feed(line: "HTTP/2 200\r\n")
            p.feed(line: name + ": v\r\n")
            let trimmed = name.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
            #expect(p.fields.fields.map(\.name) == [trimmed], "\(name)")
            #expect(p.fields.fields.first?.name.utf8.elementsEqual(trimmed.utf8) == true)
        }
    }

    @Test func garbageLinesAreSkipped() {
        var p = HeaderLineParser()
        p.feed(line: "HTTP/1.1 abc")
        p.feed(line: "no colon here")
        p.feed(line: ": empty name")
        #expect(p.statusCode == nil)
        #expect(p.fields.isEmpty)
    }
}

@Suite struct MediaTypeTests {
    @Test func quotedAndBareParameters() {
        #expect(MediaType.parameter("boundary", in: "multipart/x-mixed-replace; boundary=\"a b\"") == "a b")
        #expect(MediaType.parameter("charset", in: "text/html;CHARSET=utf-8") == "utf-8")
        #expect(MediaType.parameter("boundary", in: "text/plain") == nil)
    }

    /// A quoted value keeps its `;` and `=` and loses its escapes (RFC 9110's quoted-string); wget reads them so.
    /// Before, the value was cut at the first `;` and kept its opening quote: `"Q3 report`.
    @Test func aQuotedValueIsReadWhole() {
        #expect(MediaType.parameter("filename", in: "attachment; filename=\"Q3 report; final.pdf\"") == "Q3 report; final.pdf")
        #expect(MediaType.parameter("filename", in: #"attachment; filename="say \"hi\".txt""#) == #"say "hi".txt"#)
        #expect(MediaType.parameter("filename", in: #"attachment; filename="a=b.txt"; size=3"#) == "a=b.txt")
        #expect(MediaType.parameter("size", in: #"attachment; filename="x;y"; size=3"#) == "3")
        #expect(MediaType.parameter("filename", in: #"attachment; filename="unterminated"#) == "unterminated")
        #expect(MediaType.parameter("filename", in: "attachment; name=x") == nil)
        #expect(MediaType.parameter("filename", in: "attachment; filename = spaced.txt ") == "spaced.txt")
    }

    /// RFC 6266: `filename*` (RFC 8187's charset'language'percent-encoded) comes before `filename`, the fallback
    /// for old clients; UTF-8 and ISO-8859-1 are read, anything else falls back.
    @Test func theExtendedFileNameComesFirst() {
        func name(_ disposition: String) -> String? {
            Response(url: URL(string: "http://h/path/last")!, statusCode: 200, headers: ["Content-Disposition": disposition],
                     expectedContentLength: 1).suggestedFilename
        }
        #expect(name("attachment; filename*=UTF-8''only.pdf") == "only.pdf")
        #expect(name(#"attachment; filename="fallback.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf"#) == "résumé.pdf")
        #expect(name("attachment; filename*=iso-8859-1'en'%E9t%E9.txt") == "été.txt")
        #expect(name(#"attachment; filename*=KOI8-R''%F0%F2.txt; filename="plain.txt""#) == "plain.txt")
        #expect(name("attachment; filename*=UTF-8''bad%FF.txt") == "last", "not UTF-8: the URL's name")
        #expect(name("attachment") == "last")
    }

    @Test func responseDerivedFields() {
        let r = Response(url: URL(string: "http://h/dir/file.bin")!, statusCode: 200,
                         headers: ["Content-Type": "Text/Plain; charset=latin1",
                                   "Content-Disposition": "attachment; filename=\"report.pdf\""],
                         expectedContentLength: 10)
        #expect(r.mimeType == "text/plain")
        #expect(r.textEncodingName == "latin1")
        for (value, bare) in [(" \tText/HTML \t; charset=x", "text/html"), ("text/plain", "text/plain"), (";a=b", nil),
                              (" \t ", nil), ("", nil), ("tÉxt/é ;q", "téxt/é"), ("a/ß\t", "a/ß"), ("a/b c", "a/b c")] {
            #expect(MediaType.bare(value) == bare, "\(value)")
        }
        #expect(r.suggestedFilename == "report.pdf")
    }
}

@Suite struct DataURLTests {
    @Test func base64AndPercentEncoded() {
        #expect(DataURL("data:text/plain;base64,aGVsbG8=")?.body == Data("hello".utf8))
        #expect(DataURL("data:,a%20b")?.body == Data("a b".utf8))
        #expect(DataURL("data:,a%20b")?.mediaType == "text/plain;charset=US-ASCII")
        #expect(DataURL("data:image/png;base64,AAEC")?.mediaType == "image/png")
    }

    @Test func malformedIsNil() {
        #expect(DataURL("data:text/plain") == nil)        // no comma
        #expect(DataURL("data:;base64,@@@") == nil)       // not base64
        #expect(DataURL("data:,%zz") == nil)              // bad escape
        #expect(DataURL("http://x/") == nil)
    }
}

@Suite struct CurlErrorMappingTests {
    @Test func everyCodeMapsWithoutTrapping() {
        for raw in -1...200 {
            _ = CurlErrorMapping.code(forCurlCode: raw, message: "")
        }
        #expect(CurlErrorMapping.code(forCurlCode: 7, message: "") == .cannotConnectToHost)
        #expect(CurlErrorMapping.code(forCurlCode: 6, message: "") == .cannotFindHost)
        #expect(CurlErrorMapping.code(forCurlCode: 28, message: "") == .timedOut)
        #expect(CurlErrorMapping.code(forCurlCode: 18, message: "") == .networkConnectionLost)
        #expect(CurlErrorMapping.code(forCurlCode: 60, message: "") == .serverCertificateUntrusted)
        #expect(CurlErrorMapping.code(forCurlCode: 1, message: "Received HTTP/0.9 when not allowed") == .badServerResponse)
        #expect(CurlErrorMapping.code(forCurlCode: 1, message: "Protocol \"gopher\" not supported") == .unsupportedURL)
        #expect(CurlErrorMapping.code(forCurlCode: 9999, message: "") == .unknown)
    }
}

@Suite struct MultipartSplitterTests {
    static let body = Array(("preamble\r\n--B\r\nContent-Type: text/plain\r\nX-Part: 0\r\n\r\nfirst\r\n--B\r\n\r\n"
        + "sec\r\n--Bx\r\n--B--\r\nepilogue").utf8)

    /// Feeds the body in pieces of every size and checks the same parts come out.
    @Test(arguments: [1, 2, 3, 5, 7, 16, 1000])
    func sameResultForAnyChunking(pieceSize: Int) {
        var splitter = MultipartSplitter(boundary: "B")
        var events: [MultipartSplitter.Event] = []
        var i = 0
        while i < Self.body.count {
            splitter.feed(Self.body[i..<min(i + pieceSize, Self.body.count)])
            i += pieceSize
            while let e = splitter.next() { events.append(e) }
        }
        var parts: [(HTTPHeaders, Data)] = []
        var ended = false
        for e in events {
            switch e {
            case .part(let h): parts.append((h, Data()))
            case .data(let d): parts[parts.count - 1].1.append(d)
            case .end: ended = true
            case .malformed(let why): Issue.record("malformed: \(why)")
            }
        }
        #expect(parts.count == 2)
        #expect(parts.first?.0["X-Part"] == "0")
        #expect(parts.first.map { String(decoding: $0.1, as: UTF8.self) } == "first")
        #expect(parts.last?.0.isEmpty == true)
        #expect(parts.last.map { String(decoding: $0.1, as: UTF8.self) } == "sec\r\n--Bx")
        #expect(ended)
    }

    @Test func bodyWithoutPreambleStartsAtTheFirstBoundary() {
        var s = MultipartSplitter(boundary: "xyz")
        s.feed(Array("--xyz\r\nA: 1\r\n\r\nhi".utf8))
        let events = [s.next(), s.next(), s.next()]
        #expect(events == [.part(["A": "1"]), .data(Data("hi".utf8)), nil])
        let rest = s.finish()
        #expect(rest == nil)  // nothing held back: "hi" cannot start a delimiter
    }

    @Test func dataIsHeldOnlyWhileItCouldBeADelimiter() {
        var s = MultipartSplitter(boundary: "xyz")
        s.feed(Array("--xyz\r\n\r\nab\r\n--x".utf8))
        let events = [s.next(), s.next(), s.next()]
        #expect(events == [.part(HTTPHeaders()), .data(Data("ab".utf8)), nil])
        let rest = s.finish()
        #expect(rest == Data("\r\n--x".utf8))
    }

    @Test func endlessPartHeadersAreMalformed() {
        var s = MultipartSplitter(boundary: "b")
        s.feed(Array("--b\r\n".utf8) + Array(repeating: UInt8(ascii: "h"), count: MultipartSplitter.maximumHeaderBlock + 10))
        let event = s.next()
        #expect(event == .malformed("part headers over 64 KiB"))
    }
}

@Suite struct ContentRangeTests {
    @Test func parsesBoundsAndTotal() {
        #expect(ContentRange.parse("bytes 100-999/1000") == ContentRange(first: 100, last: 999, total: 1000))
        #expect(ContentRange.parse(" bytes 0-0/*") == ContentRange(first: 0, last: 0, total: nil))
        #expect(ContentRange.parse("Bytes 5-9/10")?.first == 5)
    }

    @Test func refusesWhatIsNotASatisfiedRange() {
        #expect(ContentRange.parse("bytes */1000") == nil)      // the 416 form
        #expect(ContentRange.parse("bytes 10-5/100") == nil)    // backwards
        #expect(ContentRange.parse("bytes 0-99/50") == nil)     // past the total
        #expect(ContentRange.parse("items 0-1/2") == nil)
        #expect(ContentRange.parse("bytes 0-1") == nil)
        #expect(ContentRange.parse("") == nil)
    }
}

@Suite struct ResumeDataTests {
    let sample = ResumeData(url: "http://h/f", path: "/tmp/.sluice-x.download", bytesOnDisk: 42,
                            etag: "\"v1\"", lastModified: "Tue, 03 Nov 2026 10:00:00 GMT", expectedLength: 100)

    @Test func roundTrips() {
        #expect(ResumeData.decode(sample.encoded()) == sample)
    }

    @Test func refusesDamagedOrForeignData() {
        #expect(ResumeData.decode(Data("not json".utf8)) == nil)
        #expect(ResumeData.decode(Data(#"{"url":"x"}"#.utf8)) == nil)
        var future = sample
        future.version = 2
        #expect(ResumeData.decode(future.encoded()) == nil)
        var negative = sample
        negative.bytesOnDisk = -1
        #expect(ResumeData.decode(negative.encoded()) == nil)
    }

    /// Another partial file than the one named is continued only for what it holds; a split plan only when the
    /// file reaches the whole length (its finished ranges past `bytesOnDisk` are there or nowhere).
    @Test func placedElsewhereItNamesTheNewFileAndOnlyTheBytesItHolds() {
        let moved = sample.placed(at: "/new/f.sluice-part", size: 42)
        #expect(moved.path == "/new/f.sluice-part" && moved.bytesOnDisk == 42 && moved.etag == sample.etag)
        #expect(sample.placed(at: "/new/f.sluice-part", size: 100).bytesOnDisk == 42, "more bytes: no more trusted")
        #expect(sample.placed(at: "/new/f.sluice-part", size: 10).bytesOnDisk == 10, "fewer: fetched again")
        #expect(sample.placed(at: sample.path, size: 42) == sample)
        var split = sample
        split.pending = [[42, 60], [80, 100]]
        split.connections = 4
        #expect(split.placed(at: "/new/f.sluice-part", size: 100).pending == split.pending, "a whole copy keeps its plan")
        let short = split.placed(at: "/new/f.sluice-part", size: 70)
        #expect(short.pending == nil && short.connections == nil && short.bytesOnDisk == 42)
        #expect(split.placed(at: split.path, size: 70).pending == split.pending, "its own file: the plan as written")
        let cut = split.placed(at: split.path, size: 30)
        #expect(cut.bytesOnDisk == 30 && cut.pending == nil)
    }

    @Test func ifRangeUsesAStrongETagElseTheDate() {
        #expect(sample.ifRange == "\"v1\"")
        var weak = sample
        weak.etag = "W/\"v1\""
        #expect(weak.ifRange == "Tue, 03 Nov 2026 10:00:00 GMT")
        weak.lastModified = nil
        #expect(weak.ifRange == nil)
    }
}
