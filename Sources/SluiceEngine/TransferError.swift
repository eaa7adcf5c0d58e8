// The engine's one error type: a clear code, the underlying library's own message, and what was kept.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

public struct TransferError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable, CaseIterable {
        case cancelled
        case timedOut
        case cannotFindHost
        case cannotConnectToHost
        case networkConnectionLost
        case badServerResponse
        case secureConnectionFailed
        case serverCertificateUntrusted
        case unsupportedURL
        case badURL
        case fileDoesNotExist
        case cannotReadFile
        case cannotWriteToFile
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

    static func cancelled(_ url: URL?) -> TransferError {
        TransferError(.cancelled, "cancelled", failingURL: url)
    }
}
