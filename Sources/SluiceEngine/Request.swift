// What a task asks for: URL, method, headers, body and an optional per-request inactivity timeout.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

public struct Request: Sendable, Equatable {
    public var url: URL
    public var method: String
    public var headers: HTTPHeaders
    public var body: Data?
    /// Inactivity timeout for this request; nil uses the configuration's `timeoutIntervalForRequest`.
    public var timeoutInterval: TimeInterval?

    public init(url: URL, method: String = "GET", headers: HTTPHeaders = HTTPHeaders(),
                body: Data? = nil, timeoutInterval: TimeInterval? = nil) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeoutInterval = timeoutInterval
    }
}
