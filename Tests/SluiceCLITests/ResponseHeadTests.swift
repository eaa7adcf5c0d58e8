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

    @Test func aFieldsEscapeSequenceIsNotWritten() {
        let response = Response(url: url, statusCode: 200, headers: HTTPHeaders([("X-Evil", "a\u{1B}]0;pwned\u{07}b")]),
                                expectedContentLength: 0)
        let text = ResponseHead.text(of: response, networkProtocol: "http/1.1")
        #expect(!text.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" }, "\(text.debugDescription)")
    }
}
