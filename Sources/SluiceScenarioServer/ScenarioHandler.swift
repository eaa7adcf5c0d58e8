// The scenarios themselves: one HTTP request in, a well-behaved or deliberately broken response out.
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

/// Paths (query parameters in brackets, sizes in bytes, times in milliseconds):
/// - `/bytes/N` pattern body with Content-Length, ETag, Last-Modified and Range support [chunked=1;
///   ranges=0: Range ignored; ranges=whole: a Range request gets the whole file, as a 206; drop=M: a request without Range loses its connection after M bytes;
///   stall=M: a request without Range gets M bytes, then silence; name=F: Content-Disposition filename F
///   (also on /drip)]
/// - `/ranged/N` pattern body for split downloads [rate, slowfirst, droprange, changed, ranges: see SegmentScenarios]
/// - `/drip?bytes=N&chunk=K&interval=MS` a slow chunked body [gate=G: nothing after the first chunk until the
///   test calls `openGate(G)`]
/// - `/multipart?parts=N&size=K&interval=MS` multipart/x-mixed-replace
/// - `/drop?bytes=N&after=M` chunked body, connection closed after M bytes
/// - `/short?bytes=N&after=M` Content-Length N, connection closed after M bytes
/// - `/huge-headers?size=N` about N bytes of response header fields [line=1: all in one field]
/// - `/stall` headers, then silence; `/silent` no answer at all
/// - `/redirect/N` a chain of N redirects ending at `/bytes/16`, each with a short body [status=S: 301, 302
///   (default), 303, 307 or 308; to=URL: where the last one points, percent-decoded; delay=MS: the body comes
///   MS after the headers]
/// - `/flaky/N?key=K&fail=F` fails its first F requests (status=S, retry-after=V, retry-after-date=S, or drop=M
///   bytes into the body), then answers as `/bytes/N` (FlakyScenarios.swift)
/// - `/status/CODE`, `/empty`, `/echo` (request body back), `/headers` (request headers back),
///   `/escape` (header values and body with terminal escape sequences),
/// - `/encoded/gzip`, `/encoded/deflate`, `/encoded/br`: `EncodedBodies.text` with that Content-Encoding
/// - `/cookies` (the request's Cookie field back), `/cookies/set?NAME=VALUE...` [attributes=; Domain=... (percent-
///   encoded, added to each); to=URL: answered with a redirect there]
/// - `/early-hints`: a 103 Early Hints with a Link header, then 200 `hinted`
/// - `/basic-auth/USER/PASS`, `/digest-auth/USER/PASS` (qop=auth, MD5), `/bearer/TOKEN`: 401 with the challenge
///   until the request answers it
///   `/upload` (any method; the body is checked against the pattern as it streams in, never stored; the answer
///   is `bytes=N pattern=ok|bad`) [early=N: answer at once with N pattern bytes, then keep reading the body]
final class ScenarioHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private var head: HTTPRequestHead?
    private var requestBody = ByteBuffer()
    /// For `/upload`: bytes seen so far and whether all of them matched the pattern.
    private var upload: (count: Int64, matches: Bool)?
    private var stream: BodyStream?
    /// `/upload?early=N` answered at its head; its end needs no answer.
    private var answeredEarly = false
    let log: RequestLog

    init(log: RequestLog) { self.log = log }

    /// A pattern body being written as fast as the socket takes it.
    private struct BodyStream {
        var offset: Int64
        var remaining: Int64
        var ending: Ending
        var keepAlive: Bool
    }

    /// What happens after a stream's last byte: a normal end, a closed connection, or silence.
    enum Ending { case end, close, hang }

    static let lastModified = "Tue, 03 Nov 2026 10:00:00 GMT"

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let h):
            head = h
            requestBody.clear()
            let (path, query) = Self.split(h.uri)
            upload = path == "/upload" ? (0, true) : nil
            if upload != nil, let early = query["early"].flatMap({ Int64($0) }) {
                answeredEarly = true
                log.record(h.uri)
                sendBytes(context: context, head: h, total: early, chunked: false, rangesHonoured: false,
                          dropAfter: nil, stallAfter: nil)
            }
        case .body(var chunk):
            if let u = upload {
                upload = (u.count + Int64(chunk.readableBytes), u.matches && ScenarioPattern.matches(chunk, at: u.count))
            } else {
                requestBody.writeBuffer(&chunk)
            }
        case .end:
            guard let head else { return }
            if !answeredEarly { respond(context: context, to: head) }
            answeredEarly = false
            self.head = nil
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { pump(context: context) }
        context.fireChannelWritabilityChanged()
    }

    // MARK: Routing

    private func respond(context: ChannelHandlerContext, to head: HTTPRequestHead) {
        let (path, query) = Self.split(head.uri)
        log.record(head.uri)
        let parts = path.split(separator: "/").map(String.init)
        let keepAlive = head.isKeepAlive
        switch parts.first ?? "" {
        case "bytes":
            let total = Int64(parts.count > 1 ? parts[1] : "") ?? 0
            sendBytes(context: context, head: head, total: total, chunked: query["chunked"] == "1",
                      rangesHonoured: query["ranges"] != "0", dropAfter: query["drop"].flatMap { Int64($0) },
                      stallAfter: query["stall"].flatMap { Int64($0) })
        case "ranged":
            SegmentScenarios.respond(context: context, head: head, size: Int64(parts.count > 1 ? parts[1] : "") ?? 0,
                                     query: query, log: log)
        case "drip":
            var headers = HTTPHeaders([("Content-Type", "application/octet-stream")])
            headers.add(name: "Cache-Control", value: "no-store")
            if let name = query["name"] { headers.add(name: "Content-Disposition", value: "attachment; filename=\"\(name)\"") }
            writeHead(context, .ok, headers)
            drip(context: context, offset: 0, remaining: Int64(query.int("bytes", 4096)),
                 chunk: query.int("chunk", 256), interval: query.int("interval", 50), gate: query["gate"], keepAlive: keepAlive)
        case "multipart":
            multipart(context: context, parts: query.int("parts", 3), size: query.int("size", 64),
                      interval: query.int("interval", 20), keepAlive: keepAlive)
        case "drop":
            writeHead(context, .ok, HTTPHeaders([("Content-Type", "application/octet-stream")]))
            startStream(context: context, offset: 0, count: Int64(query.int("after", 1000)), ending: .close, keepAlive: false)
        case "short":
            let announced = query.int("bytes", 10_000)
            writeHead(context, .ok, HTTPHeaders([("Content-Length", String(announced))]))
            startStream(context: context, offset: 0, count: Int64(min(query.int("after", 1000), announced)),
                        ending: .close, keepAlive: false)
        case "huge-headers":
            var headers = HTTPHeaders([("Content-Length", "2")])
            let size = query.int("size", 200_000)
            if query["line"] == "1" {
                headers.add(name: "X-Huge", value: String(repeating: "h", count: size))  // one enormous line
            } else {
                let line = String(repeating: "h", count: 8000)
                for i in 0..<max(1, size / 8000) { headers.add(name: "X-Huge-\(i)", value: line) }
            }
            finish(context, .ok, headers, body: "ok", keepAlive: keepAlive)
        case "stall":
            writeHead(context, .ok, HTTPHeaders([("Content-Length", "1000")]))
            context.flush()  // the headers leave; the body never comes
        case "silent":
            break
        case "redirect":
            let n = Int(parts.count > 1 ? parts[1] : "") ?? 1
            let status = query.int("status", 302)
            var rest = Self.split(head.uri).1.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "&")
            if !rest.isEmpty { rest = "?" + rest }
            let target = n <= 1 ? query["to"].map(Self.percentDecoded) ?? "/bytes/16" : "/redirect/\(n - 1)\(rest)"
            let body = "redirect \(n) with \(status)\n"
            let headers = HTTPHeaders([("Location", target), ("Content-Length", String(body.utf8.count))])
            guard let delay = query["delay"].flatMap({ Int64($0) }) else {
                return finish(context, HTTPResponseStatus(statusCode: status), headers, body: body, keepAlive: keepAlive)
            }
            writeHead(context, HTTPResponseStatus(statusCode: status), headers)
            context.flush()
            context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(delay)) { [self] in
                guard context.channel.isActive else { return }
                context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: body)))), promise: nil)
                end(context, keepAlive: keepAlive)
            }
        case "flaky":
            let total = Int64(parts.count > 1 ? parts[1] : "") ?? 0
            flaky(context: context, head: head, total: total, query: query, attempt: log.count(head.uri))
        case "status":
            let code = Int(parts.count > 1 ? parts[1] : "") ?? 200
            finish(context, HTTPResponseStatus(statusCode: code), HTTPHeaders(), body: "status \(code)\n", keepAlive: keepAlive)
        case "empty":
            finish(context, .ok, HTTPHeaders(), body: "", keepAlive: keepAlive)
        case "echo":
            var headers = HTTPHeaders([("X-Request-Method", head.method.rawValue)])
            headers.add(name: "Content-Length", value: String(requestBody.readableBytes))
            writeHead(context, .ok, headers)
            context.write(wrapOutboundOut(.body(.byteBuffer(requestBody))), promise: nil)
            end(context, keepAlive: keepAlive)
        case "headers":
            let text = head.headers.map { "\($0.name): \($0.value)\n" }.joined()
            finish(context, .ok, HTTPHeaders([("Content-Type", "text/plain")]), body: text, keepAlive: keepAlive)
        case "upload":
            let u = upload ?? (0, true)
            finish(context, .ok, HTTPHeaders([("Content-Type", "text/plain")]),
                   body: "bytes=\(u.count) pattern=\(u.matches ? "ok" : "bad")\n", keepAlive: keepAlive)
        case "encoded":  // the body compressed as the path says, sent whatever the request accepts
            let encoding = parts.count > 1 ? parts[1] : "gzip"
            guard let body = EncodedBodies.body(encoding) else {
                return finish(context, .notFound, HTTPHeaders(), body: "no encoding \(encoding)\n", keepAlive: keepAlive)
            }
            writeHead(context, .ok, HTTPHeaders([("Content-Encoding", encoding), ("Content-Type", "text/plain"),
                                                 ("Content-Length", String(body.count))]))
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
            end(context, keepAlive: keepAlive)
        case "cookies":  // /cookies echoes the Cookie field; /cookies/set?n=v sets them (then redirects with to=)
            if parts.count > 1, parts[1] == "set" {
                var headers = HTTPHeaders()
                for (name, value) in query.sorted(by: { $0.key < $1.key }) where name != "to" && name != "attributes" {
                    headers.add(name: "Set-Cookie", value: "\(name)=\(value)\(query["attributes"].map(Self.percentDecoded) ?? "")")
                }
                if let to = query["to"] {
                    headers.add(name: "Location", value: Self.percentDecoded(to))
                    return finish(context, .found, headers, body: "", keepAlive: keepAlive)
                }
                return finish(context, .ok, headers, body: "set\n", keepAlive: keepAlive)
            }
            finish(context, .ok, HTTPHeaders([("Content-Type", "text/plain")]),
                   body: "cookie: \(head.headers.first(name: "Cookie") ?? "")\n", keepAlive: keepAlive)
        case "early-hints":  // a 103 with a Link, then the answer
            writeHead(context, HTTPResponseStatus(statusCode: 103, reasonPhrase: "Early Hints"),
                      HTTPHeaders([("Link", "</style.css>; rel=preload; as=style")]))
            finish(context, .ok, HTTPHeaders([("Content-Type", "text/plain")]), body: "hinted\n", keepAlive: keepAlive)
        case "basic-auth", "digest-auth", "bearer":
            let (status, headers, body) = AuthScenarios.answer(kind: parts[0], parts: parts, query: query.mapValues(Self.percentDecoded), head: head)
            finish(context, status, headers, body: body, keepAlive: keepAlive)
        case "escape":
            let headers = HTTPHeaders([("X-Evil", "\u{1B}]0;owned\u{07}\u{1B}[2J"), ("Content-Type", "text/plain")])
            finish(context, .ok, headers, body: "\u{1B}[31mred\u{1B}[0m\n", keepAlive: keepAlive)
        default:
            finish(context, .notFound, HTTPHeaders(), body: "no scenario at \(path)\n", keepAlive: keepAlive)
        }
    }

    // MARK: Scenarios

    func sendBytes(context: ChannelHandlerContext, head: HTTPRequestHead, total: Int64, chunked: Bool,
                           rangesHonoured: Bool, dropAfter: Int64?, stallAfter: Int64?) {
        let etag = "\"sluice-\(total)\""
        var headers = HTTPHeaders([("Content-Type", "application/octet-stream"), ("ETag", etag),
                                   ("Last-Modified", Self.lastModified)])
        if rangesHonoured { headers.add(name: "Accept-Ranges", value: "bytes") }
        if let name = Self.split(head.uri).1["name"] {
            headers.add(name: "Content-Disposition", value: "attachment; filename=\"\(name)\"")
        }
        var range = RangeRequest.whole(total)
        if !chunked, rangesHonoured, let value = head.headers.first(name: "Range") {
            let ifRange = head.headers.first(name: "If-Range")
            if ifRange == nil || ifRange == etag || ifRange == Self.lastModified {
                range = RangeRequest.parse(value, total: total)
            }
        }
        switch range {
        case .unsatisfiable:
            headers.add(name: "Content-Range", value: "bytes */\(total)")
            finish(context, .rangeNotSatisfiable, headers, body: "", keepAlive: head.isKeepAlive)
        case .whole:
            if !chunked { headers.add(name: "Content-Length", value: String(total)) }
            writeHead(context, .ok, headers)
            if head.method == .HEAD { end(context, keepAlive: head.isKeepAlive); return }
            if let dropAfter, head.headers.first(name: "Range") == nil {
                return startStream(context: context, offset: 0, count: min(dropAfter, total), ending: .close, keepAlive: false)
            }
            if let stallAfter, head.headers.first(name: "Range") == nil {
                return startStream(context: context, offset: 0, count: min(stallAfter, total), ending: .hang, keepAlive: false)
            }
            startStream(context: context, offset: 0, count: total, ending: .end, keepAlive: head.isKeepAlive)
        case .part(var lower, var upper):
            if Self.split(head.uri).1["ranges"] == "whole" { (lower, upper) = (0, total - 1) }  // a 206 that lies
            headers.add(name: "Content-Range", value: "bytes \(lower)-\(upper)/\(total)")
            headers.add(name: "Content-Length", value: String(upper - lower + 1))
            writeHead(context, .partialContent, headers)
            startStream(context: context, offset: lower, count: upper - lower + 1, ending: .end, keepAlive: head.isKeepAlive)
        }
    }

    /// A chunk every `interval` ms; with a gate, nothing after the first chunk until the test opens the gate.
    private func drip(context: ChannelHandlerContext, offset: Int64, remaining: Int64, chunk: Int, interval: Int,
                      gate: String?, keepAlive: Bool) {
        guard remaining > 0 else { return end(context, keepAlive: keepAlive) }
        let held = offset > 0 && gate.map { !log.isOpen(gate: $0) } == true
        let n = held ? 0 : Int(min(Int64(max(1, chunk)), remaining))
        if n > 0 {
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ScenarioPattern.slice(offset: offset, count: n)))), promise: nil)
        }
        context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(Int64(interval))) { [self] in
            guard context.channel.isActive else { return }
            drip(context: context, offset: offset + Int64(n), remaining: remaining - Int64(n),
                 chunk: chunk, interval: interval, gate: gate, keepAlive: keepAlive)
        }
    }

    static let multipartBoundary = "sluice-frame"

    private func multipart(context: ChannelHandlerContext, parts: Int, size: Int, interval: Int, keepAlive: Bool) {
        writeHead(context, .ok, HTTPHeaders([("Content-Type", "multipart/x-mixed-replace; boundary=\"\(Self.multipartBoundary)\"")]))
        sendPart(context: context, index: 0, parts: parts, size: size, interval: interval, keepAlive: keepAlive)
    }

    /// Part i is `size` bytes of the letter ("a" + i % 26), announced with its own type and length.
    static func partBody(index: Int, size: Int) -> String {
        String(repeating: String(UnicodeScalar(UInt8(97 + index % 26))), count: size)
    }

    private func sendPart(context: ChannelHandlerContext, index: Int, parts: Int, size: Int, interval: Int, keepAlive: Bool) {
        guard index < parts else {
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: "\r\n--\(Self.multipartBoundary)--\r\n")))), promise: nil)
            return end(context, keepAlive: keepAlive)
        }
        let lead = index == 0 ? "" : "\r\n"
        let text = "\(lead)--\(Self.multipartBoundary)\r\nContent-Type: text/plain\r\nContent-Length: \(size)\r\n"
            + "X-Part: \(index)\r\n\r\n" + Self.partBody(index: index, size: size)
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: text)))), promise: nil)
        context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(Int64(interval))) { [self] in
            guard context.channel.isActive else { return }
            sendPart(context: context, index: index + 1, parts: parts, size: size, interval: interval, keepAlive: keepAlive)
        }
    }

    // MARK: Writing

    func startStream(context: ChannelHandlerContext, offset: Int64, count: Int64, ending: Ending, keepAlive: Bool) {
        stream = BodyStream(offset: offset, remaining: count, ending: ending, keepAlive: keepAlive)
        pump(context: context)
    }

    /// Writes while the socket takes it; `channelWritabilityChanged` calls back in when it drains.
    private func pump(context: ChannelHandlerContext) {
        guard var s = stream else { return }
        var wrote = false
        // A close fails the writes still queued in the channel, so a dropped body closes only once its last
        // slice has reached the socket: the client gets exactly the bytes the scenario promises.
        var lastWrite: EventLoopPromise<Void>?
        while s.remaining > 0 && context.channel.isWritable {
            let n = Int(min(Int64(256 << 10), s.remaining))
            if n == s.remaining && s.ending == .close { lastWrite = context.eventLoop.makePromise() }
            context.write(wrapOutboundOut(.body(.byteBuffer(ScenarioPattern.slice(offset: s.offset, count: n)))), promise: lastWrite)
            s.offset += Int64(n)
            s.remaining -= Int64(n)
            wrote = true
        }
        // Settle our state before flushing: a flush can re-enter through channelWritabilityChanged.
        stream = s.remaining == 0 ? nil : s
        if wrote { context.flush() }
        guard s.remaining == 0 else { return }
        switch s.ending {
        case .close:
            let written = lastWrite ?? {
                // Nothing of the body went out in this pass (drop=0): an empty write still waits for the head.
                let promise = context.eventLoop.makePromise(of: Void.self)
                context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer()))), promise: promise)
                return promise
            }()
            written.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        case .end: end(context, keepAlive: s.keepAlive)
        case .hang: break
        }
    }

    func writeHead(_ context: ChannelHandlerContext, _ status: HTTPResponseStatus, _ headers: HTTPHeaders) {
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
    }

    func finish(_ context: ChannelHandlerContext, _ status: HTTPResponseStatus, _ headers: HTTPHeaders,
                        body: String, keepAlive: Bool) {
        var headers = headers
        if !headers.contains(name: "Content-Length") { headers.add(name: "Content-Length", value: String(body.utf8.count)) }
        writeHead(context, status, headers)
        if !body.isEmpty { context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: body)))), promise: nil) }
        end(context, keepAlive: keepAlive)
    }

    private func end(_ context: ChannelHandlerContext, keepAlive: Bool) {
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        if !keepAlive { context.close(promise: nil) }
    }

    /// `%XX` sequences as bytes, so that a parameter can carry a URL with its own query.
    static func percentDecoded(_ text: String) -> String {
        let source = Array(text.utf8)
        var bytes: [UInt8] = []
        var i = 0
        while i < source.count {
            if source[i] == 37, i + 2 < source.count,
               let value = UInt8(String(decoding: source[(i + 1)...(i + 2)], as: UTF8.self), radix: 16) {
                bytes.append(value)
                i += 3
            } else {
                bytes.append(source[i])
                i += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func split(_ uri: String) -> (String, [String: String]) {
        guard let q = uri.firstIndex(of: "?") else { return (uri, [:]) }
        var query: [String: String] = [:]
        for pair in uri[uri.index(after: q)...].split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1).map(String.init)
            query[kv[0]] = kv.count > 1 ? kv[1] : ""
        }
        return (String(uri[..<q]), query)
    }
}

extension Dictionary where Key == String, Value == String {
    func int(_ key: String, _ fallback: Int) -> Int { self[key].flatMap { Int($0) } ?? fallback }
}
