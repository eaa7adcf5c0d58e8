// One connection to the daemon's API: reads a request, routes it to the hub, writes the JSON reply and closes;
// `GET /events` instead keeps the connection and streams JSON lines until the client or the daemon goes.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore
import NIOHTTP1
import SluiceTUI
import SluiceViewModel

final class DaemonHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// Requests carry a URL or a number: anything longer is a mistake or worse.
    static let bodyLimit = 64 * 1024

    private let hub: DaemonHub
    /// The peer runs as the daemon's own user.
    private let allowed: Bool
    private var head: HTTPRequestHead?
    private var body = ByteBuffer()
    private var tooLarge = false
    /// The event stream this connection reads, if it does.
    private var subscription: Int?
    private var closedEarly = false

    init(hub: DaemonHub, allowed: Bool) {
        self.hub = hub
        self.allowed = allowed
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let h):
            head = h
            body.clear()
            tooLarge = false
        case .body(var chunk):
            if body.readableBytes + chunk.readableBytes > Self.bodyLimit { tooLarge = true } else { body.writeBuffer(&chunk) }
        case .end:
            guard let head else { return }
            self.head = nil
            guard allowed else { return respond(context, .error(403, "this daemon serves only its own user")) }
            guard !tooLarge else { return respond(context, .error(413, "a request body is at most \(Self.bodyLimit) bytes")) }
            route(context, head, body: Data(body.readableBytesView))
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        closedEarly = true
        if let subscription { hub.unsubscribe(subscription) }
        context.fireChannelInactive()
    }

    // MARK: Routes

    private func route(_ context: ChannelHandlerContext, _ head: HTTPRequestHead, body: Data) {
        let (path, query) = Self.split(head.uri)
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        switch (head.method, parts.count) {
        case (.GET, 1) where parts[0] == "tasks":
            run(context) { $0.rows() }
        case (.POST, 1) where parts[0] == "tasks":
            switch AddRequest.parse(body) {
            case .success(let add): run(context) { $0.add(add) }
            case .failure(let problem): respond(context, .error(400, problem.message))
            }
        case (.POST, 3) where parts[0] == "tasks" && parts[2] == "move":
            guard let id = Int(parts[1]) else { return respond(context, .error(404, "no task \(parts[1])")) }
            guard let step = MoveRequest.parse(body) else { return respond(context, .error(400, "expected {\"by\": N}")) }
            run(context) { $0.move(id, by: step) }
        case (.POST, 3) where parts[0] == "tasks" && parts[2] == "refresh":
            guard let id = Int(parts[1]) else { return respond(context, .error(404, "no task \(parts[1])")) }
            guard let refresh = RefreshRequest.parse(body) else { return respond(context, .error(400, "expected {\"url\": \"...\", \"force\": false}")) }
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            let loop = context.eventLoop
            hub.refresh(id, url: refresh.url, force: refresh.force ?? false) { reply in
                loop.execute {
                    let (handler, context) = bound.value
                    handler.respond(context, reply)
                }
            }
        case (.POST, 3) where parts[0] == "tasks" && parts[2] == "limit":
            guard let id = Int(parts[1]) else { return respond(context, .error(404, "no task \(parts[1])")) }
            guard let limit = TaskLimitRequest.parse(body) else {
                return respond(context, .error(400, "expected {\"bytesPerSecond\": N} or {\"bytesPerSecond\": null}"))
            }
            run(context) { $0.setRate(of: id, limit) }
        case (.POST, 3) where parts[0] == "tasks":
            guard let id = Int(parts[1]) else { return respond(context, .error(404, "no task \(parts[1])")) }
            guard let action = DaemonHub.Control(rawValue: parts[2]) else {
                return respond(context, .error(404, "no action \(parts[2]): suspend, resume, cancel, convert, move or limit"))
            }
            run(context) { $0.control(id, action) }
        case (.DELETE, 2) where parts[0] == "tasks":
            guard let id = Int(parts[1]) else { return respond(context, .error(404, "no task \(parts[1])")) }
            let purge = query["purge"].map { $0 == "1" || $0 == "true" } ?? false
            run(context) { $0.remove(id, purge: purge) }
        case (.POST, 2) where parts[0] == "all":
            switch parts[1] {
            case "suspend": run(context) { $0.all(.suspendAll) }
            case "resume": run(context) { $0.all(.resumeAll) }
            case "clear": run(context) { $0.clearEnded() }
            default: respond(context, .error(404, "no action \(parts[1]) for all: suspend, resume or clear"))
            }
        case (.POST, 1) where parts[0] == "limits":
            guard let limits = LimitsRequest.parse(body) else {
                return respond(context, .error(400, "expected {\"jobs\": N} and/or {\"bytesPerSecond\": N or null}"))
            }
            run(context) { $0.setLimits(limits) }
        case (.POST, 1) where parts[0] == "stop":
            let hub = self.hub
            respond(context, DaemonReply(200, "{\"stopping\":true}")) { hub.requestStop() }
        case (.GET, 1) where parts[0] == "events":
            let from = query["from"].flatMap { Int($0) } ?? 1
            stream(context, from: from)
        case (.GET, 1) where parts[0] == "attach":
            stream(context, from: nil)
        case (_, 1) where ["tasks", "limits", "stop", "events", "attach"].contains(parts[0]),
             (_, 2) where parts[0] == "tasks" || parts[0] == "all", (_, 3) where parts[0] == "tasks":
            respond(context, .error(405, "\(head.method.rawValue) is not allowed on \(path)"))
        default:
            respond(context, .error(404, "no such endpoint: \(path) (see docs/api.md)"))
        }
    }

    /// Carries out `work` on the hub's queue, then answers on this connection's event loop.
    private func run(_ context: ChannelHandlerContext, _ work: @escaping @Sendable (DaemonHub) -> DaemonReply) {
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let loop = context.eventLoop
        hub.perform(work) { reply in
            loop.execute {
                let (handler, context) = bound.value
                handler.respond(context, reply)
            }
        }
    }

    private func respond(_ context: ChannelHandlerContext, _ reply: DaemonReply, then: (@Sendable () -> Void)? = nil) {
        guard !closedEarly else { return }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Content-Length", value: String(reply.body.utf8.count + 1))
        headers.add(name: "Connection", value: "close")
        let status = HTTPResponseStatus(statusCode: reply.status)
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: reply.body + "\n")))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            channel.close(promise: nil)
            then?()
        }
    }

    /// `GET /events?from=N`: chunked JSON lines, the kept ones from N first, then each new one, until either side
    /// goes away. `from` nil: `GET /attach`, the model then its events (`AttachLine`).
    private func stream(_ context: ChannelHandlerContext, from: Int?) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/x-ndjson")
        headers.add(name: "Cache-Control", value: "no-store")
        context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
        let channel = context.channel
        let hub = self.hub
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        let loop = context.eventLoop
        hub.onQueue {
            let send: @Sendable (String) -> Void = { text in
                channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(string: text))), promise: nil)
            }
            let finish: @Sendable () -> Void = {
                channel.writeAndFlush(HTTPServerResponsePart.end(nil)).whenComplete { _ in channel.close(promise: nil) }
            }
            let id = from.map { hub.subscribe(from: $0, send: send, finish: finish) } ?? hub.attach(send: send, finish: finish)
            loop.execute {
                // The client may already have gone: then nobody else will unsubscribe.
                if bound.value.closedEarly { hub.unsubscribe(id) } else { bound.value.subscription = id }
            }
        }
    }

    /// The path and the query's name=value pairs.
    static func split(_ uri: String) -> (String, [String: String]) {
        guard let mark = uri.firstIndex(of: "?") else { return (uri, [:]) }
        var query: [String: String] = [:]
        for pair in uri[uri.index(after: mark)...].split(separator: "&") {
            let sides = pair.split(separator: "=", maxSplits: 1).map(String.init)
            query[sides[0]] = sides.count > 1 ? sides[1] : ""
        }
        return (String(uri[..<mark]), query)
    }
}
