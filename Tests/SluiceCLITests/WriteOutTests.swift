// -w/--write-out: curl's format read the way curl reads it, and each variable written in curl's shape from what a
// transfer ended with. (e2e-cli compares whole lines with curl's against a real server.)
import Foundation
import SluiceEngine
import Testing
@testable import SluiceCLI

@Suite struct WriteOutTests {
    let url = URL(string: "http://h/start")!

    @Test func escapesPercentsAndTheUnknownAreReadAsCurlReadsThem() {
        let format = WriteOut(format: #"a\tb\n100%% %{HTTP_CODE} %{nope}\q %x %{open"#)
        #expect(format.pieces == [.text("a\tb\n100% "), .variable(.httpCode), .text(#" \q %x %{open"#)])
        #expect(format.unknown == ["nope"])
        #expect(WriteOut(format: "%header{Content-Type}|%header{x").pieces == [.header("Content-Type"), .text("|%header{x")])
        #expect(WriteOut(format: "%{stderr}e%{stdout}o%{onerror}f%{json}").pieces
                == [.toStandardError, .text("e"), .toStandardOutput, .text("o"), .onError, .text("f"), .json])
        #expect(WriteOut(format: "trailing\\").pieces == [.text("trailing\\")])
        #expect(WriteOut(format: "").pieces.isEmpty)
    }

    @Test func aResponseAfterARedirectIsWrittenInCurlsShapes() {
        let final = URL(string: "https://h/end")!
        let first = TransactionMetrics(url: url, statusCode: 302, networkProtocol: "http/1.1", remoteAddress: "127.0.0.1",
                                       remotePort: 80, domainLookupEnd: 0.001, connectEnd: 0.002, requestStart: 0.003,
                                       responseStart: 0.004, total: 0.005, headerBytesReceived: 100)
        let last = TransactionMetrics(url: final, statusCode: 200, networkProtocol: "h2", remoteAddress: "127.0.0.2",
                                      remotePort: 443, domainLookupEnd: 0.0001, connectEnd: 0.0002,
                                      secureConnectionEnd: 0.0102, requestStart: 0.0103, responseStart: 0.02,
                                      total: 0.5, bodyBytesReceived: 1000, headerBytesReceived: 50)
        var facts = WriteOutFacts(url: "http://h/start", urlNumber: 2)
        facts.response = Response(url: final, statusCode: 200, headers: HTTPHeaders([("content-type", "text/plain")]),
                                  expectedContentLength: 1000)
        facts.metrics = TaskMetrics(transactions: [first, last], redirectCount: 1, duration: 0.51)
        facts.filename = "out.bin"
        let line = "%{http_code} %{http_version} %{scheme} %{num_redirects} %{num_connects} %{size_download} "
            + "%{size_header} %{content_type} %{url} %{url_effective} %{remote_ip}:%{remote_port} %{urlnum} %{method} "
            + "%{filename_effective} %{exitcode}[%{errormsg}]"
        #expect(WriteOut(format: line).render(facts).output
                == "200 2 HTTPS 1 2 1000 150 text/plain http://h/start https://h/end 127.0.0.2:443 2 GET out.bin 0[]")
        // Each time includes the redirect's 5 ms, as libcurl's; 1000 bytes in 0.505 s.
        let times = "%{time_redirect} %{time_namelookup} %{time_connect} %{time_appconnect} %{time_pretransfer} "
            + "%{time_starttransfer} %{time_total} %{speed_download}"
        #expect(WriteOut(format: times).render(facts).output
                == "0.005000 0.005100 0.005200 0.015200 0.015300 0.025000 0.505000 1980")
    }

    @Test func aTransferWithNoResponseHasCurlsEmptyValues() {
        var facts = WriteOutFacts(url: "http://127.0.0.1:1/x")
        facts.failed(CLIFailure(code: 1, message: "could not connect"))
        let rendered = WriteOut(format: "%{http_code} %{http_version} %{time_total} %{size_download} %{exitcode} %{errormsg} [%{content_type}] %{url_effective}")
            .render(facts)
        #expect(rendered.output == "000 0 0.000000 0 1 could not connect [] http://127.0.0.1:1/x")
    }

    @Test func theStreamsAndOnErrorSplitTheText() {
        var facts = WriteOutFacts(url: "http://h/")
        let format = WriteOut(format: "out %{stderr}err%{stdout} back%{onerror} failed")
        #expect(format.render(facts) == (output: "out  back", error: "err"))
        facts.failed(CLIFailure(code: 22, message: "the server answered 404 for http://h/"))
        #expect(format.render(facts) == (output: "out  back failed", error: "err"))
    }

    @Test func serverTextCannotReachTheTerminalAsControls() {
        var facts = WriteOutFacts(url: "http://h/")
        facts.response = Response(url: url, statusCode: 200,
                                  headers: HTTPHeaders([("Content-Type", "text/html\u{1B}]0;pwned\u{07}"), ("X-A", "\u{1B}[2J")]),
                                  expectedContentLength: 0)
        let rendered = WriteOut(format: "%{content_type}%header{x-a}%{json}").render(facts).output
        #expect(!rendered.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" }, "\(rendered.debugDescription)")
    }

    @Test func jsonHoldsEveryVariableWithNumbersAsNumbers() throws {
        var facts = WriteOutFacts(url: "http://h/\"q\"")
        facts.response = Response(url: url, statusCode: 204, headers: HTTPHeaders(), expectedContentLength: 0)
        let text = WriteOut(format: "%{json}").render(facts).output
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object.count == WriteOut.Variable.allCases.count)
        #expect(object["http_code"] as? Int == 204)
        #expect(object["url"] as? String == "http://h/\"q\"")
        #expect(object["time_total"] as? Double == 0)
    }

    @Test func aFormatFileIsReadAndAMissingOneIsAClearError() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        try "code=%{http_code}\\n".write(toFile: dir.path + "/format", atomically: true, encoding: .utf8)
        #expect(try WriteOut.read("@" + dir.path + "/format").pieces == [.text("code="), .variable(.httpCode), .text("\n")])
        #expect(try WriteOut.read("plain").pieces == [.text("plain")])
        #expect(throws: CLIFailure.self) { try WriteOut.read("@" + dir.path + "/missing") }
    }
}
