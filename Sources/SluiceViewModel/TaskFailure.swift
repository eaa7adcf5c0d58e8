// Why a task failed: the engine's code and libcurl's full message for the detail pane, and a few plain words
// for a list cell ("connection lost at 43%", "timed out", "refused", "certificate not trusted").
import SluiceEngine

public struct TaskFailure: Equatable, Sendable, Codable {
    public let code: TransferError.Code
    /// The underlying library's own message, whole: the detail pane wraps it.
    public let message: String
    public let curlCode: Int?
    /// How far the body had come: bytes, and the fraction when its length was known.
    public let bytes: Int64
    public let fraction: Double?

    public init(code: TransferError.Code, message: String, curlCode: Int? = nil, bytes: Int64 = 0, fraction: Double? = nil) {
        self.code = code
        self.message = message
        self.curlCode = curlCode
        self.bytes = bytes
        self.fraction = fraction
    }

    public init(_ error: TransferError, bytes: Int64, fraction: Double?) {
        self.init(code: error.code, message: error.message, curlCode: error.curlCode, bytes: bytes, fraction: fraction)
    }

    /// The reason in words, longest first; every list ends with a word or two that fits a narrow cell.
    public var words: [String] {
        switch code {
        case .networkConnectionLost:
            if let fraction, fraction < 1 {
                let at = "at \(Int(fraction * 100))%"
                return ["connection lost " + at, "lost " + at, "lost"]
            }
            if bytes > 0 {
                let after = "after " + ByteCountText.format(bytes)
                return ["connection lost " + after, "lost " + after, "lost"]
            }
            return ["connection lost", "lost"]
        case .timedOut: return ["timed out"]
        case .cannotConnectToHost:
            return message.lowercased().contains("refused") ? ["connection refused", "refused"] : ["cannot connect", "no connection"]
        case .cannotFindHost: return ["host not found", "no host"]
        case .serverCertificateUntrusted: return ["certificate not trusted", "untrusted cert", "bad cert"]
        case .secureConnectionFailed: return ["TLS handshake failed", "TLS failed"]
        case .badServerResponse: return ["bad response from the server", "bad response"]
        case .tooManyRedirects: return ["too many redirects", "redirect loop"]
        case .unsupportedURL: return ["unsupported URL"]
        case .badURL: return ["bad URL"]
        case .fileDoesNotExist: return ["no such file"]
        case .cannotReadFile: return ["cannot read the file", "read error"]
        case .cannotWriteToFile: return ["cannot write the file", "write error"]
        case .cannotCreateFile: return ["its file name was taken", "name taken"]
        case .cannotDecodeContent: return ["cannot decode the body", "bad encoding"]
        case .requestBodyStreamExhausted: return ["the body cannot be sent again", "body spent"]
        case .sessionInvalidated: return ["session closed"]
        case .cancelled: return ["cancelled"]
        default: return ["failed"]  // the engine's rarer codes; the detail pane has the message
        }
    }

    /// The code and the full message for the detail pane: "networkConnectionLost (curl 18): transfer closed...".
    public var detail: String {
        code.rawValue + (curlCode.map { " (curl \($0))" } ?? "") + ": " + Sanitized.text(message)
    }
}
