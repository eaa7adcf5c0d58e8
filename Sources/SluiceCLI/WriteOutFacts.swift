// What -w/--write-out reads of one transfer once it has ended (its last attempt's), and each variable's text in
// curl's shape: a status as three digits ("000" when none came), times as seconds with six decimals summed over
// the redirects' requests as libcurl sums them, sizes and speeds as whole numbers.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SluiceEngine
import SluiceViewModel

struct WriteOutFacts: Sendable {
    /// The URL as given, and its place among the command's URLs (from 0).
    var url: String
    var urlNumber = 0
    var method = "GET"
    var response: Response?
    var metrics: TaskMetrics?
    /// Body bytes received and sent, when the metrics have no request to count them (a file: URL, a failure).
    var bytesReceived: Int64 = 0
    var bytesSent: Int64 = 0
    /// What sluice exits with for this transfer alone (0, 22 for a status of 400 or more, 1...), and why not 0.
    var exitCode: Int32 = 0
    var errorMessage: String?
    /// The file the body went to; empty for standard output.
    var filename: String?

    private var last: TransactionMetrics? { metrics?.transactions.last }

    /// The seconds every request before the last took: libcurl's redirect time, which each later time includes.
    private var redirectSeconds: Double {
        guard let transactions = metrics?.transactions, transactions.count > 1 else { return 0 }
        return transactions.dropLast().reduce(0) { $0 + $1.total }
    }

    /// The same text as curl's for `variable`.
    func text(of variable: WriteOut.Variable) -> String {
        switch variable {
        case .contentType: return response?.headers["Content-Type"].map(Sanitized.text) ?? ""
        case .errorMessage: return errorMessage.map(Sanitized.text) ?? ""
        case .exitCode: return String(exitCode)
        case .filenameEffective: return filename.map(Sanitized.text) ?? ""
        case .httpCode, .responseCode: return String(statusCode).leftPadded(to: 3)
        case .httpVersion: return httpVersion
        case .method: return Sanitized.text(method)
        case .numConnects: return String(connects)
        case .numHeaders: return String(response?.headers.count ?? 0)
        case .numRedirects: return String(metrics?.redirectCount ?? 0)
        case .remoteIP: return last?.remoteAddress.map(Sanitized.text) ?? ""
        case .remotePort: return String(last?.remotePort ?? 0)
        // As libcurl 7.88 names it, and only once a server was reached.
        case .scheme: return response != nil || last?.remoteAddress != nil ? (effectiveURL.scheme ?? "").uppercased() : ""
        case .sizeDownload: return String(sizeDownload)
        case .sizeHeader: return String(metrics?.transactions.reduce(0) { $0 + $1.headerBytesReceived } ?? 0)
        case .sizeUpload: return String(sizeUpload)
        case .speedDownload: return String(speed(sizeDownload))
        case .speedUpload: return String(speed(sizeUpload))
        case .timeAppconnect: return seconds(last.map { $0.secureConnectionEnd.map { redirectSeconds + $0 } ?? 0 } ?? 0)
        case .timeConnect: return seconds(last.map { redirectSeconds + $0.connectEnd } ?? 0)
        case .timeNamelookup: return seconds(last.map { redirectSeconds + $0.domainLookupEnd } ?? 0)
        case .timePretransfer: return seconds(last.map { redirectSeconds + $0.requestStart } ?? 0)
        case .timeRedirect: return seconds(redirectSeconds)
        case .timeStarttransfer: return seconds(last.map { redirectSeconds + $0.responseStart } ?? 0)
        case .timeTotal: return seconds(totalSeconds)
        case .url: return Sanitized.text(url)
        case .urlEffective: return Sanitized.text(effectiveURL.absoluteString)
        case .urlNumber: return String(urlNumber)
        }
    }

    /// `%{json}`: every variable, numbers as numbers, as curl's (which also writes the ones sluice does not have).
    var json: String {
        let numeric: Set<WriteOut.Variable> = [.exitCode, .httpCode, .responseCode, .numConnects, .numHeaders,
                                               .numRedirects, .remotePort, .sizeDownload, .sizeHeader, .sizeUpload,
                                               .speedDownload, .speedUpload, .urlNumber, .timeAppconnect, .timeConnect,
                                               .timeNamelookup, .timePretransfer, .timeRedirect, .timeStarttransfer,
                                               .timeTotal]
        let fields = WriteOut.Variable.allCases.map { variable -> String in
            let value = text(of: variable)
            let number = variable == .httpCode || variable == .responseCode ? String(statusCode) : value
            return JSONText.quote(variable.rawValue) + ":" + (numeric.contains(variable) ? number : JSONText.quote(value))
        }
        return "{" + fields.joined(separator: ",") + "}"
    }

    private var statusCode: Int { response?.statusCode ?? last?.statusCode ?? 0 }

    private var effectiveURL: URL {
        if let url = response?.url ?? last?.url { return url }
        return ParsedURL.parse(url) ?? URL(fileURLWithPath: "/")
    }

    /// curl's "0" when no server answered.
    private var httpVersion: String { WireVersion(networkProtocol: last?.networkProtocol)?.curlNumber ?? "0" }

    /// Connections this transfer opened (not those it reused).
    private var connects: Int {
        metrics?.transactions.filter { !$0.isReusedConnection && $0.remoteAddress != nil }.count ?? 0
    }

    private var sizeDownload: Int64 { last?.bodyBytesReceived ?? bytesReceived }
    private var sizeUpload: Int64 { last?.bodyBytesSent ?? bytesSent }

    private var totalSeconds: Double {
        guard let last else { return metrics?.duration ?? 0 }
        return redirectSeconds + last.total
    }

    /// Bytes a second over the whole transfer, as libcurl's average.
    private func speed(_ bytes: Int64) -> Int64 {
        let total = totalSeconds
        return total > 0 ? Int64(Double(bytes) / total) : 0
    }

    /// "0.012345": seconds with microseconds, as curl's writeTime.
    private func seconds(_ value: Double) -> String {
        let micros = max(0, Int64((value * 1e6).rounded()))
        return "\(micros / 1_000_000)." + String(micros % 1_000_000).leftPadded(to: 6)
    }
}

extension WriteOutFacts {
    /// What `task` ended with (its last attempt, when there were retries).
    mutating func take(_ task: SessionTask) {
        method = task.currentRequest.method
        response = task.response
        metrics = task.metrics
        bytesReceived = task.countOfBytesReceived
        bytesSent = task.countOfBytesSent
    }

    /// The transfer failed: what sluice exits with for it, and says.
    mutating func failed(_ failure: CLIFailure) {
        exitCode = failure.code
        errorMessage = failure.message
    }
}
