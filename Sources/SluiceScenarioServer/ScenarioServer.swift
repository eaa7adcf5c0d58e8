// An HTTP server on 127.0.0.1 (SwiftNIO) whose paths are named scenarios, several of them misbehaving on purpose.
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
import NIOPosix
import Synchronization

/// Start it with `ScenarioServer.start()`; every URL it hands out is on 127.0.0.1 and a port the kernel chose.
public final class ScenarioServer: Sendable {
    public let port: Int
    /// A second listener that answers every connection with bytes that are not HTTP.
    public let garbagePort: Int
    private let group: MultiThreadedEventLoopGroup
    private let channels: [Channel]
    private let log: RequestLog

    private init(group: MultiThreadedEventLoopGroup, http: Channel, garbage: Channel, log: RequestLog) {
        self.group = group
        self.log = log
        channels = [http, garbage]
        port = http.localAddress?.port ?? 0
        garbagePort = garbage.localAddress?.port ?? 0
    }

    public static func start(host: String = "127.0.0.1", port: Int = 0) throws -> ScenarioServer {
        _ = ScenarioPattern.buffer  // built once up front, not inside the first request
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let log = RequestLog()
        do {
            let http = try ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 256)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        // Unvalidated: scenarios send what a lying server sends (control characters in a field,
                        // for one), and with NIO's check /escape's answer was dropped and its request hung.
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                            withErrorHandling: true, withOutboundHeaderValidation: false)
                        try channel.pipeline.syncOperations.addHandler(ScenarioHandler(log: log))
                    }
                }
                .bind(host: host, port: port).wait()
            let garbage = try ServerBootstrap(group: group)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(NotHTTPHandler())
                    }
                }
                .bind(host: host, port: 0).wait()
            return ScenarioServer(group: group, http: http, garbage: garbage, log: log)
        } catch {
            try? group.syncShutdownGracefully()
            throw error
        }
    }

    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// A URL on this server: `server.url("/bytes/1024")`.
    public func url(_ pathAndQuery: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(pathAndQuery)") ?? baseURL
    }

    /// Lets every `/drip?gate=KEY` body go on past its first chunk: a transfer that stays under way exactly as long
    /// as the test needs, however slow the machine.
    public func openGate(_ key: String) { log.open(gate: key) }

    /// How many requests for exactly this path and query reached the server since it started.
    public func requestCount(_ pathAndQuery: String) -> Int { log.count(pathAndQuery) }

    /// The paths and queries containing `text`, in the order their requests arrived (of the latest few thousand).
    public func requestOrder(containing text: String) -> [String] { log.arrived(containing: text) }

    /// How many of the requests for this `/flaky` path and query asked for a Range (resumed).
    public func rangedRequestCount(_ pathAndQuery: String) -> Int { log.count(ScenarioHandler.rangedKey(pathAndQuery)) }

    /// The seconds between consecutive requests for exactly this path and query: how long each retry waited.
    public func requestGaps(_ pathAndQuery: String) -> [Double] {
        let times = log.arrivals(pathAndQuery)
        return zip(times.dropFirst(), times).map { $0 - $1 }
    }

    /// The most paced range streams of `/ranged/...` at `pathAndQuery` that ran at once.
    public func mostConcurrentRanges(_ pathAndQuery: String) -> Int { log.count("max " + pathAndQuery) }

    /// The Range fields sent to `/ranged/...` at `pathAndQuery`, in no particular order.
    public func rangesRequested(_ pathAndQuery: String) -> [String] {
        log.keys(startingWith: "range-field \(pathAndQuery) ").map { String($0.dropFirst("range-field \(pathAndQuery) ".count)) }
    }

    public var garbageURL: URL { URL(string: "http://127.0.0.1:\(garbagePort)/")! }

    /// A URL on a port where nothing listens: bound by the kernel, then closed again.
    public static func refusedURL() -> URL {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var port = 1
        if fd >= 0 {
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            port = withUnsafeMutablePointer(to: &address) { a in
                a.withMemoryRebound(to: sockaddr.self, capacity: 1) { p in
                    guard bind(fd, p, length) == 0, getsockname(fd, p, &length) == 0 else { return 1 }
                    return Int(UInt16(bigEndian: a.pointee.sin_port))
                }
            }
            close(fd)
        }
        return URL(string: "http://127.0.0.1:\(port)/")!
    }

    public func shutdown() {
        for channel in channels { try? channel.close().wait() }
        try? group.syncShutdownGracefully()
    }
}

/// Answers any connection with a line that is not an HTTP response, then closes.
final class NotHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    func channelActive(context: ChannelHandlerContext) {
        let buffer = context.channel.allocator.buffer(string: "SSH-2.0-OpenSSH_9.2 this is not http\r\n\u{1B}[31mred\r\n")
        context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)  // small: it leaves at once
        context.close(promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}
}
