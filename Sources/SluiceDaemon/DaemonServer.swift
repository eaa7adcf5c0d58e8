// The daemon's API on a Unix socket: HTTP/1.1 through SwiftNIO, each connection's peer uid checked with
// SO_PEERCRED before anything else (another user gets 403), no TCP listener at all.
#if canImport(Glibc)
import Glibc
#endif
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix

/// Linux's `struct ucred` (which Swift's Glibc module hides behind _GNU_SOURCE), field for field.
struct PeerCredentials: Sendable {
    var pid: pid_t = 0
    var uid: uid_t = 0
    var gid: gid_t = 0
}

public final class DaemonServer: Sendable {
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel

    private init(group: MultiThreadedEventLoopGroup, channel: any Channel) {
        self.group = group
        self.channel = channel
    }

    /// Binds `path` (which must not exist: the caller holds the lock and removed any stale one) with mode 0600.
    public static func start(path: String, hub: DaemonHub, logger: Logger) throws(DaemonFailure) -> DaemonServer {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let owner = getuid()
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 64)
            .childChannelInitializer { channel in
                // The peer's credentials, as the kernel recorded them at connect(2): they cannot be forged.
                let provider = channel as? SocketOptionProvider
                let credentials: EventLoopFuture<PeerCredentials> = provider?.unsafeGetSocketOption(level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED))
                    ?? channel.eventLoop.makeFailedFuture(DaemonFailure("no peer credentials"))
                return credentials.map { Optional($0) }.recover { _ in nil }.flatMapThrowing { peer in
                    let allowed = peer?.uid == owner
                    if !allowed { logger.warning("refused a connection from uid \(peer.map { String($0.uid) } ?? "unknown")") }
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(DaemonHTTPHandler(hub: hub, allowed: allowed))
                }
            }
        // The directory is 0700 already; the umask keeps the socket 0600 from its first instant too.
        let previous = umask(0o177)
        defer { umask(previous) }
        do {
            let channel = try bootstrap.bind(unixDomainSocketPath: path).wait()
            return DaemonServer(group: group, channel: channel)
        } catch {
            try? group.syncShutdownGracefully()
            throw DaemonFailure("cannot listen on \(path): \(error)")
        }
    }

    /// Closes the listening socket and every connection.
    public func stop() {
        try? channel.close().wait()
        try? group.syncShutdownGracefully()
    }
}
