// A one-line failure and the exit status it ends the program with.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import SluiceEngine
import SluiceViewModel

struct CLIFailure: Error {
    let code: Int32
    let message: String
}

extension CLIFailure {
    /// An HTTP error status is a success for the engine, not for the command line: exit 22, as curl --fail.
    static func checkStatus(_ response: Response?, _ target: URL) throws(CLIFailure) {
        if let status = response?.statusCode, status >= 400 {
            throw CLIFailure(code: 22, message: statusMessage(status, for: target))
        }
    }

    /// What an error status says. A 407 through an HTTP proxy (no tunnel) was "the server answered 407", blaming
    /// the server for the proxy's want of a password (found by a tester).
    static func statusMessage(_ status: Int, for url: URL) -> String {
        let place = Sanitized.text(url.absoluteString)
        guard status == 407 else { return "the server answered \(status) for \(place)" }
        return "the proxy refused the request to \(place) for want of valid credentials (--proxy-user USER:PASSWORD)"
    }
}
