// The engine's one error type: a clear code, the underlying library's own message, and what was kept.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

public struct TransferError: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    public enum Code: String, Sendable, Codable, CaseIterable {
        case cancelled
        case timedOut
        case cannotFindHost
        case cannotConnectToHost
        case networkConnectionLost
        case badServerResponse
        case secureConnectionFailed
        /// The server's certificate was refused; `certificateProblem` says why.
        case serverCertificateUntrusted
        /// The proxy refused the request for want of (valid) credentials: 407 to a CONNECT, or a SOCKS5 refusal.
        case proxyAuthenticationRequired
        case unsupportedURL
        case badURL
        case fileDoesNotExist
        case cannotReadFile
        case cannotWriteToFile
        /// A file the task was to create as new (a partial file whose name its caller found free) is there already:
        /// another program took the name. Nothing of that file was touched.
        case cannotCreateFile
        case tooManyRedirects
        /// A 307 or 308 redirect needs the request body again, and a stream body cannot be sent twice.
        case requestBodyStreamExhausted
        case cannotDecodeContent
        case sessionInvalidated
        case unknown
    }

    public let code: Code
    /// Human-readable detail; for transfer failures this is libcurl's own message.
    public let message: String
    /// libcurl's CURLcode when the failure came from libcurl.
    public let curlCode: Int?
    public let failingURL: URL?
    /// For a download that stopped part way with its partial file kept: pass to `downloadTask(withResumeData:)`.
    public internal(set) var resumeData: Data?

    public init(_ code: Code, _ message: String, curlCode: Int? = nil, failingURL: URL? = nil) {
        self.code = code
        self.message = message
        self.curlCode = curlCode
        self.failingURL = failingURL
    }

    public var description: String { "\(code.rawValue): \(message)" }

    /// Why the server's certificate was refused, read from the TLS library's message; nil for other failures.
    public var certificateProblem: CertificateProblem? {
        code == .serverCertificateUntrusted ? CurlErrorMapping.certificateProblem(message) : nil
    }

    static func cancelled(_ url: URL?) -> TransferError {
        TransferError(.cancelled, "cancelled", failingURL: url)
    }
}

/// The reason a server's certificate is not trusted, in the terms a user can act on.
public enum CertificateProblem: String, Sendable, CaseIterable {
    case expired
    case notYetValid
    /// The certificate is valid but names other hosts than the one in the URL.
    case hostMismatch
    /// The chain ends at an authority that is not in the trusted store (the system's, or the configured CA file).
    case untrustedIssuer
    case selfSigned
    case revoked
    /// Refused for a reason not listed here; the error's message has the TLS library's words.
    case other

    /// "has expired": completes "the server's certificate ...".
    public var explanation: String {
        switch self {
        case .expired: "has expired"
        case .notYetValid: "is not valid yet (is this machine's clock right?)"
        case .hostMismatch: "is for another host name"
        case .untrustedIssuer: "is signed by an authority that is not trusted here"
        case .selfSigned: "is self-signed"
        case .revoked: "has been revoked"
        case .other: "cannot be verified"
        }
    }
}
