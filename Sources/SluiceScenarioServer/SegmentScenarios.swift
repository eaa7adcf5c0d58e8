// `/ranged/N`: a pattern body for split downloads, with a per-connection rate and Range-aware misbehaviour.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore
import NIOHTTP1

/// Query parameters (rates in bytes per second, sizes in bytes):
/// - `rate=R` each connection's body is paced at R (as nginx's `limit_rate`)
/// - `slowfirst=R` the first Range request for this exact URL is paced at R instead: the segment to steal from
/// - `droprange=M` the first Range request for this exact URL loses its connection after M bytes
/// - `changed=1` every request after the first for this exact URL sees a new version of the file (another ETag,
///   4096 bytes longer): an If-Range with the old ETag gets the whole new body
/// - `ranges=0` no Accept-Ranges, and Range is ignored
/// - `ignore=1` Accept-Ranges announced, Range ignored: every request gets the whole body
/// - `expires=K` a signed link that expires: the K-th request for this exact URL and every later one get 403
/// - `gzip=accepted` as nginx with `gzip on` for the type: a request that accepts gzip gets `EncodedBodies`'
///   gzip text, 200 without Content-Range, whatever Range it asked for
enum SegmentScenarios {
    /// A whole response with its length, on a connection closed after it.
    private static func whole(_ context: ChannelHandlerContext, _ head: HTTPRequestHead, _ status: HTTPResponseStatus,
                              _ fields: [(String, String)], _ body: ByteBuffer) {
        let headers = HTTPHeaders(fields + [("Content-Length", String(body.readableBytes)), ("Connection", "close")])
        context.write(NIOAny(HTTPServerResponsePart.head(HTTPResponseHead(version: head.version, status: status, headers: headers))),
                      promise: nil)
        context.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(body))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }

    static func respond(context: ChannelHandlerContext, head: HTTPRequestHead, size: Int64, query: [String: String],
                        log: RequestLog) {
        if let after = query["expires"].flatMap({ Int($0) }), log.count(head.uri) >= after {
            return whole(context, head, .forbidden, [("Content-Type", "text/plain")], ByteBuffer(string: "this link has expired\n"))
        }
        if query["gzip"] == "accepted", head.headers.first(name: "Accept-Encoding")?.contains("gzip") == true,
           let body = EncodedBodies.body("gzip") {
            return whole(context, head, .ok, [("Content-Encoding", "gzip"), ("Content-Type", "text/plain")], ByteBuffer(bytes: body))
        }
        let version = query["changed"] == "1" && log.count(head.uri) > 1 ? 2 : 1
        let total = version == 2 ? size + 4096 : size
        let etag = "\"ranged-\(size)-v\(version)\""
        let rangesHonoured = query["ranges"] != "0"
        var headers = HTTPHeaders([("Content-Type", "application/octet-stream"), ("ETag", etag),
                                   ("Last-Modified", ScenarioHandler.lastModified)])
        if rangesHonoured { headers.add(name: "Accept-Ranges", value: "bytes") }
        var range = RangeRequest.whole(total)
        var firstRange = false
        if rangesHonoured, let value = head.headers.first(name: "Range") {
            let ifRange = head.headers.first(name: "If-Range")
            if query["ignore"] != "1", ifRange == nil || ifRange == etag {
                range = RangeRequest.parse(value, total: total)
            }
            firstRange = log.record("range " + head.uri) == 1
            let slow = firstRange && query["slowfirst"] != nil
            log.record("range-field \(head.uri) \(slow ? "slow " : "")\(value)")
        }
        var rate = query["rate"].flatMap { Int64($0) }
        if firstRange, let slow = query["slowfirst"].flatMap({ Int64($0) }) { rate = slow }
        let dropAfter = firstRange ? query["droprange"].flatMap { Int64($0) } : nil
        let keepAlive = head.isKeepAlive && dropAfter == nil
        let (status, offset, count): (HTTPResponseStatus, Int64, Int64)
        switch range {
        case .unsatisfiable:
            headers.add(name: "Content-Range", value: "bytes */\(total)")
            headers.add(name: "Content-Length", value: "0")
            write(context, .head(HTTPResponseHead(version: .http1_1, status: .rangeNotSatisfiable, headers: headers)))
            return end(context, keepAlive: keepAlive)
        case .whole:
            (status, offset, count) = (.ok, 0, total)
        case .part(let lower, let upper):
            headers.add(name: "Content-Range", value: "bytes \(lower)-\(upper)/\(total)")
            (status, offset, count) = (.partialContent, lower, upper - lower + 1)
        }
        headers.add(name: "Content-Length", value: String(count))
        write(context, .head(HTTPResponseHead(version: .http1_1, status: status, headers: headers)))
        if head.method == .HEAD { return end(context, keepAlive: keepAlive) }
        // Paced range streams are counted while they run, so that a test can see how many ran at once.
        let counted = rate != nil && head.headers.first(name: "Range") != nil
        if counted { log.enter(head.uri) }
        let done: () -> Void = counted ? { log.leave(head.uri) } : {}
        send(context: context, offset: offset, remaining: min(count, dropAfter ?? count), rate: rate,
             drops: dropAfter.map { $0 < count } ?? false, keepAlive: keepAlive, done: done)
    }

    /// Sends the body in ticks of 20 ms, each `rate / 50` bytes (all of it at once without a rate).
    private static func send(context: ChannelHandlerContext, offset: Int64, remaining: Int64, rate: Int64?, drops: Bool,
                             keepAlive: Bool, done: @escaping () -> Void) {
        guard context.channel.isActive else { return done() }
        let slice = rate.map { max(1, $0 / 50) } ?? remaining
        var sent: Int64 = 0
        while sent < min(slice, remaining) {
            let n = min(Int64(256 << 10), min(slice, remaining) - sent)
            write(context, .body(.byteBuffer(ScenarioPattern.slice(offset: offset + sent, count: Int(n)))))
            sent += n
        }
        let left = remaining - sent
        guard left > 0 else {
            done()
            if drops {
                let flushed = context.eventLoop.makePromise(of: Void.self)
                context.writeAndFlush(NIOAny(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer()))), promise: flushed)
                flushed.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
                return
            }
            return end(context, keepAlive: keepAlive)
        }
        context.flush()
        context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(20)) {
            send(context: context, offset: offset + sent, remaining: left, rate: rate, drops: drops, keepAlive: keepAlive,
                 done: done)
        }
    }

    private static func write(_ context: ChannelHandlerContext, _ part: HTTPServerResponsePart) {
        context.write(NIOAny(part), promise: nil)
    }

    private static func end(_ context: ChannelHandlerContext, keepAlive: Bool) {
        context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)), promise: nil)
        if !keepAlive { context.close(promise: nil) }
    }
}
