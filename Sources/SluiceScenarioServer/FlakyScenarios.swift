// `/flaky/N`: a body that fails its first requests on purpose (an error status, maybe with Retry-After, or a
// connection dropped mid-body), then is served whole or from a Range, so retries can be tested end to end.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOHTTP1

/// Query: `key=K` (the attempts are counted per path and query, so a test picks a key of its own), `fail=F` (how
/// many requests fail, default 1), then either `status=S` (default 503) with `retry-after=V` (sent as it is) or
/// `retry-after-date=S` (an HTTP-date S seconds after the request), or `drop=M` (a 200 or 206 whose connection closes
/// after M body bytes; with `drops=D` only the first D of the F do, the others answer the status). Request F+1 and later get `/bytes/N`'s answer, Range and If-Range included.
extension ScenarioHandler {
    func flaky(context: ChannelHandlerContext, head: HTTPRequestHead, total: Int64, query: [String: String], attempt: Int) {
        if head.headers.contains(name: "Range") { log.record(Self.rangedKey(head.uri)) }
        let failing = query.int("fail", 1)
        guard attempt <= failing else {
            return sendBytes(context: context, head: head, total: total, chunked: false, rangesHonoured: true,
                             dropAfter: nil, stallAfter: nil)
        }
        if let drop = query["drop"].flatMap({ Int64($0) }), attempt <= query.int("drops", failing) {
            return dropMidBody(context: context, head: head, total: total, after: drop)
        }
        var headers = HTTPHeaders()
        if let value = query["retry-after"] {
            headers.add(name: "Retry-After", value: Self.percentDecoded(value))
        } else if let seconds = query["retry-after-date"].flatMap({ Double($0) }) {
            headers.add(name: "Retry-After", value: Self.httpDate(secondsFromNow: seconds))
        }
        let status = query.int("status", 503)
        finish(context, HTTPResponseStatus(statusCode: status), headers, body: "flaky \(status) (attempt \(attempt))\n",
               keepAlive: head.isKeepAlive)
    }

    /// The body (or the asked range of it) with its true length announced, closed after `after` bytes.
    private func dropMidBody(context: ChannelHandlerContext, head: HTTPRequestHead, total: Int64, after: Int64) {
        var headers = HTTPHeaders([("Content-Type", "application/octet-stream"), ("ETag", "\"sluice-\(total)\""),
                                   ("Last-Modified", Self.lastModified), ("Accept-Ranges", "bytes")])
        var lower: Int64 = 0
        var upper = total - 1
        if let value = head.headers.first(name: "Range"), case .part(let from, let to) = RangeRequest.parse(value, total: total) {
            lower = from
            upper = to
            headers.add(name: "Content-Range", value: "bytes \(lower)-\(upper)/\(total)")
        }
        headers.add(name: "Content-Length", value: String(upper - lower + 1))
        writeHead(context, lower > 0 || upper < total - 1 ? .partialContent : .ok, headers)
        startStream(context: context, offset: lower, count: min(after, upper - lower + 1), ending: .close, keepAlive: false)
    }

    /// Where requests that carried a Range are counted a second time.
    static func rangedKey(_ uri: String) -> String { "Range " + uri }

    /// "Sun, 06 Nov 1994 08:49:37 GMT" for now plus `seconds` (rounded up, so the date is never early).
    static func httpDate(secondsFromNow seconds: Double) -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var time = time_t(Double(now.tv_sec) + (seconds + Double(now.tv_nsec) / 1e9).rounded(.up))
        var parts = tm()
        gmtime_r(&time, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
