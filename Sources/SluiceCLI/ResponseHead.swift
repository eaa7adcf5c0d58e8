// What `sluice get -I` prints for a response: its status line and header fields, as curl -I prints them
// ("HTTP/2 200", then "name: value" lines, then an empty line), with CRLF line ends.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SluiceEngine
import SluiceViewModel

enum ResponseHead {
    /// `networkProtocol`: the metrics' name ("http/1.1", "h2"); the status line says HTTP/1.1 without it, and
    /// ends with the server's reason phrase when it sent one ("HTTP/1.1 404 Not Found"). Server text is sanitized:
    /// it may reach a terminal.
    static func text(of response: Response, networkProtocol: String?) -> String {
        let version = (WireVersion(networkProtocol: networkProtocol) ?? .http1_1).statusLineName
        var text = "\(version) \(response.statusCode.map(String.init) ?? "000")"
        if let phrase = response.reasonPhrase { text += " " + Sanitized.text(phrase) }
        text += "\r\n"
        for field in response.headers.fields {
            text += Sanitized.text(field.name) + ": " + Sanitized.text(field.value) + "\r\n"
        }
        return text + "\r\n"
    }
}
