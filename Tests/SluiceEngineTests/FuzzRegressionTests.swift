// Inputs the fuzz harnesses in Fuzz/ found to break a parser's properties, kept so each stays fixed.
import Foundation
import Testing
@testable import SluiceEngine

@Suite struct HeaderLineFuzzRegressionTests {
    /// Found by Fuzz/header-lines: a continuation line of blanks left a trailing space on the value, and a
    /// continuation of an empty value a leading one ("Content-Length: 5" then " " gave "5 ", no longer a number).
    @Test func blankContinuationsAddNoBlanks() {
        var p = HeaderLineParser()
        p.feed(line: "HTTP/1.0 200 OK\r\n")
        p.feed(line: "Content-Length: 5\r\n")
        p.feed(line: "\t \r\n")
        p.feed(line: "X-Empty:\r\n")
        p.feed(line: " two\r\n")
        #expect(p.fields["Content-Length"] == "5")
        #expect(p.fields["X-Empty"] == "two")
    }
}

@Suite struct MultipartFuzzRegressionTests {
    /// Every event, with the data of consecutive events joined, from `body` fed in pieces of `pieceSize`.
    func events(_ body: [UInt8], boundary: String, pieceSize: Int) -> [MultipartSplitter.Event] {
        var splitter = MultipartSplitter(boundary: boundary)
        var events: [MultipartSplitter.Event] = []
        func add(_ event: MultipartSplitter.Event) {
            if case .data(let more) = event, case .data(let data)? = events.last {
                events[events.count - 1] = .data(data + more)
            } else {
                events.append(event)
            }
        }
        var at = 0
        while at < body.count {
            splitter.feed(body[at..<min(at + pieceSize, body.count)])
            at += pieceSize
            while let event = splitter.next() { add(event) }
        }
        if let rest = splitter.finish() { add(.data(rest)) }
        return events
    }

    /// Failed Fuzz/multipart's property (the same parts whatever the chunking) on a hand-made input longer than
    /// a short fuzz run reaches: the limits on the line after a boundary (1 KiB) and on a part's header block
    /// (64 KiB) were checked against the bytes that had arrived so far, so the same body was malformed when it
    /// came in small chunks and split into parts when it came whole.
    @Test(arguments: ["line after a boundary", "part header block"])
    func limitsDoNotDependOnChunking(overLimit: String) {
        let body = overLimit == "line after a boundary"
            ? "--B" + String(repeating: "x", count: 1100) + "\r\n\r\nbody\r\n--B--\r\n"
            : "--B\r\nX-Long: " + String(repeating: "h", count: MultipartSplitter.maximumHeaderBlock + 100) + "\r\n\r\nbody\r\n--B--\r\n"
        let whole = events(Array(body.utf8), boundary: "B", pieceSize: body.utf8.count)
        let chunked = events(Array(body.utf8), boundary: "B", pieceSize: 100)
        #expect(whole == chunked)
        #expect(whole.last.map { if case .malformed = $0 { true } else { false } } == true, "over a limit is malformed")
    }
}
