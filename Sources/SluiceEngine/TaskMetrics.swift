// What URLSession calls task metrics: one transaction per request a task sent (a redirect adds one), with
// libcurl's timings and the connection it used, delivered once, just before didCompleteWithError.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

public struct TransactionMetrics: Sendable, Equatable, Codable {
    public var url: URL
    public var statusCode: Int?
    /// "http/1.0", "http/1.1", "h2" or "h3"; nil when no response came.
    public var networkProtocol: String?
    public var remoteAddress: String?
    public var remotePort: Int?
    /// The request went over a connection an earlier request had opened.
    public var isReusedConnection: Bool
    /// Seconds from the start of this request: name resolved, connected, TLS done (nil without TLS), request
    /// about to be sent, first response byte, and the end.
    public var domainLookupEnd: Double
    public var connectEnd: Double
    public var secureConnectionEnd: Double?
    public var requestStart: Double
    public var responseStart: Double
    public var total: Double
    /// Body bytes sent and received, and the response's header bytes.
    public var bodyBytesSent: Int64
    public var bodyBytesReceived: Int64
    public var headerBytesReceived: Int64

    public init(url: URL, statusCode: Int? = nil, networkProtocol: String? = nil, remoteAddress: String? = nil,
                remotePort: Int? = nil, isReusedConnection: Bool = false, domainLookupEnd: Double = 0, connectEnd: Double = 0,
                secureConnectionEnd: Double? = nil, requestStart: Double = 0, responseStart: Double = 0, total: Double = 0,
                bodyBytesSent: Int64 = 0, bodyBytesReceived: Int64 = 0, headerBytesReceived: Int64 = 0) {
        self.url = url
        self.statusCode = statusCode
        self.networkProtocol = networkProtocol
        self.remoteAddress = remoteAddress
        self.remotePort = remotePort
        self.isReusedConnection = isReusedConnection
        self.domainLookupEnd = domainLookupEnd
        self.connectEnd = connectEnd
        self.secureConnectionEnd = secureConnectionEnd
        self.requestStart = requestStart
        self.responseStart = responseStart
        self.total = total
        self.bodyBytesSent = bodyBytesSent
        self.bodyBytesReceived = bodyBytesReceived
        self.headerBytesReceived = headerBytesReceived
    }

    /// libcurl's CURLINFO_HTTP_VERSION values.
    static func protocolName(curlHTTPVersion: Int) -> String? {
        switch curlHTTPVersion {
        case 1: "http/1.0"
        case 2: "http/1.1"
        case 3: "h2"
        case 30: "h3"
        default: nil
        }
    }
}

public struct TaskMetrics: Sendable, Equatable, Codable {
    /// In the order the requests were sent; empty for file: and data: URLs and tasks that never sent one.
    public var transactions: [TransactionMetrics]
    public var redirectCount: Int
    /// Seconds from the task's first request to its completion.
    public var duration: Double

    public init(transactions: [TransactionMetrics], redirectCount: Int, duration: Double) {
        self.transactions = transactions
        self.redirectCount = redirectCount
        self.duration = duration
    }
}
