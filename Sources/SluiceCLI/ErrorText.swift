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
    /// "cannot connect to 127.0.0.1:9: Couldn't connect to server"
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
        case .secureConnectionFailed, .serverCertificateUntrusted: lead = "TLS failure with \(place)"
        case .unsupportedURL: lead = "unsupported URL"
        case .badURL: lead = "bad URL"
        case .fileDoesNotExist: lead = "no such file"
        case .cannotWriteToFile: lead = "cannot write the file"
        case .cannotReadFile: lead = "cannot read the file"
        default: lead = error.code.rawValue
        }
        return "\(lead): \(error.message)"
    }
}
