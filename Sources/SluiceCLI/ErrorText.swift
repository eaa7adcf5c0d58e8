// One line saying what went wrong and where, from a TransferError.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import SluiceEngine

enum ErrorText {
    /// "cannot connect to 127.0.0.1:9: Couldn't connect to server"; a refused certificate says why in words.
    static func describe(_ error: TransferError, url: URL) -> String {
        let place = url.host.map { h in url.port.map { "\(h):\($0)" } ?? h } ?? url.absoluteString
        let lead: String
        switch error.code {
        case .cancelled: lead = "cancelled"
        case .timedOut: lead = "timed out talking to \(place)"
        case .cannotFindHost: lead = "cannot find host \(url.host ?? place)"
        case .cannotConnectToHost: lead = "cannot connect to \(place)"
        case .networkConnectionLost: lead = "connection to \(place) lost"
        case .badServerResponse: lead = "bad response from \(place)"
        case .secureConnectionFailed: lead = "TLS failure with \(place)"
        case .serverCertificateUntrusted:
            // "certificate of 127.0.0.1:8443 not trusted: it has expired (SSL certificate problem: ...)"
            let problem = error.certificateProblem ?? .other
            let hint = problem == .untrustedIssuer || problem == .selfSigned ? "; --cacert FILE trusts another authority" : ""
            return "certificate of \(place) not trusted: it \(problem.explanation) (\(error.message))\(hint)"
        case .proxyAuthenticationRequired:
            lead = "the proxy refused the request to \(place) for want of valid credentials (--proxy-user USER:PASSWORD)"
        case .unsupportedURL: lead = "unsupported URL"
        case .badURL: lead = "bad URL"
        case .fileDoesNotExist: lead = "no such file"
        case .cannotWriteToFile: lead = "cannot write the file"
        case .cannotCreateFile: lead = "cannot create the file"
        case .tooManyRedirects: lead = "too many redirects from \(place)"
        case .cannotReadFile: lead = "cannot read the file"
        default: lead = error.code.rawValue
        }
        return "\(lead): \(error.message)"
    }
}
