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
    /// "cannot connect to 127.0.0.1:9: Couldn't connect to server"; a refused certificate says why in words. The
    /// place is the URL that failed (`failingURL`: a redirect's target), else `requested`.
    static func describe(_ error: TransferError, url requested: URL) -> String {
        let url = error.failingURL ?? requested
        let place = url.host.map { h in url.port.map { "\(h):\($0)" } ?? h } ?? url.absoluteString
        let lead: String
        switch error.code {
        case .cancelled: lead = "cancelled"
        case .timedOut: lead = "timed out talking to \(place)"
        case .cannotFindHost: lead = "cannot find host \(url.host ?? place)"
        case .cannotConnectToHost:
            // libcurl names what it could not reach; another host or port than the URL's is the proxy.
            if let (host, port) = connectTarget(error.message), host != url.host || port != url.port ?? defaultPort(url) {
                lead = "cannot connect to the proxy \(host):\(port) (for \(place))"
            } else {
                lead = "cannot connect to \(place)"
            }
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
        // The engine's and the delegates' messages say what could not be done with which file already.
        case .cannotWriteToFile where error.message.hasPrefix("cannot "), .cannotCreateFile where error.message.hasPrefix("cannot "):
            return error.message
        case .cannotWriteToFile: lead = "cannot write the file"
        case .cannotCreateFile: lead = "cannot create the file"
        case .tooManyRedirects: lead = "too many redirects from \(place)"
        case .cannotReadFile: lead = "cannot read the file"
        default: lead = error.code.rawValue
        }
        return "\(lead): \(error.message)"
    }

    /// The host and port of libcurl's "Failed to connect to HOST port PORT after N ms: ...", if it says so.
    static func connectTarget(_ message: String) -> (host: String, port: Int)? {
        let words = message.split(separator: " ", omittingEmptySubsequences: true)
        guard let connect = words.firstIndex(of: "connect"), connect >= 2, words[connect - 2] == "Failed",
              connect + 4 < words.count, words[connect + 1] == "to", words[connect + 3] == "port" else { return nil }
        let at = connect + 1
        let port = words[at + 3].prefix { $0.isNumber }
        guard let number = Int(port) else { return nil }
        return (String(words[at + 1]), number)
    }

    private static func defaultPort(_ url: URL) -> Int {
        url.scheme?.lowercased() == "https" ? 443 : 80
    }
}
