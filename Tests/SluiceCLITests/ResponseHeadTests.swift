// `sluice get -I`'s text: curl's shape (status line, fields, empty line, CRLF), the protocol's name, and no control
// character from a server reaching the terminal.
import Foundation
import SluiceEngine
import Testing
@testable import SluiceCLI

@Suite struct ResponseHeadTests {
    let url = URL(string: "http://h/x")!

    @Test func theStatusLineNamesTheProtocolAndTheFieldsFollowInOrder() {
        let response = Response(url: url, statusCode: 404, headers: HTTPHeaders([("content-type", "text/html"), ("x-a", "1")]),
                                expectedContentLength: 10)
        #expect(ResponseHead.text(of: response, networkProtocol: "h2") == "HTTP/2 404\r\ncontent-type: text/html\r\nx-a: 1\r\n\r\n")
        #expect(ResponseHead.text(of: response, networkProtocol: "http/1.0").hasPrefix("HTTP/1.0 404\r\n"))
        #expect(ResponseHead.text(of: response, networkProtocol: nil).hasPrefix("HTTP/1.1 404\r\n"))
    }

    /// As curl prints it: "HTTP/1.1 404 Not Found", the phrase sanitized; HTTP/2 has none.
    @Test func theReasonPhraseFollowsTheStatus() {
        let response = Response(url: url, statusCode: 404, reasonPhrase: "Not \u{1B}[2JFound", headers: HTTPHeaders(),
                                expectedContentLength: 0)
        let line = ResponseHead.text(of: response, networkProtocol: "http/1.1").split(separator: "\r\n").first.map(String.init)
        #expect(line == "HTTP/1.1 404 Not \\x1b[2JFound")
        #expect(ResponseHead.text(of: Response(url: url, statusCode: 200, reasonPhrase: "OK", headers: HTTPHeaders(), expectedContentLength: 0),
                                  networkProtocol: "http/1.1").hasPrefix("HTTP/1.1 200 OK\r\n"))
    }

    @Test func aFieldsEscapeSequenceIsNotWritten() {
        let response = Response(url: url, statusCode: 200, headers: HTTPHeaders([("X-Evil", "a\u{1B}]0;pwned\u{07}b")]),
                                expectedContentLength: 0)
        let text = ResponseHead.text(of: response, networkProtocol: "http/1.1")
        #expect(!text.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" }, "\(text.debugDescription)")
    }
}
