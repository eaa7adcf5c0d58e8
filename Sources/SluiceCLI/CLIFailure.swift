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
            throw CLIFailure(code: 22, message: "the server answered \(status) for \(Sanitized.text(target.absoluteString))")
        }
    }
}
