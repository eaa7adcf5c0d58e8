// How a session's transfers behave: timeouts, extra headers, connection limits, HTTP/2, TLS.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

public struct SessionConfiguration: Sendable {
    /// Seconds a transfer may go without receiving or sending a byte (while not paused) before it times out.
    public var timeoutIntervalForRequest: TimeInterval = 60
    /// Seconds the whole task may take, from resume to completion.
    public var timeoutIntervalForResource: TimeInterval = 7 * 24 * 3600
    /// Seconds a connection (its TLS handshake included) may take to be made before the task fails as timed out
    /// (curl's `--connect-timeout`); nil: the request's own timeout.
    public var timeoutIntervalForConnect: TimeInterval?
    /// Told each line libcurl says of a task's transfer (curl -v: its notes and the header lines sent and received),
    /// on the transfer thread as it happens: it must return at once. Nil (the default) asks libcurl for nothing.
    public var wireMonitor: (@Sendable (_ taskIdentifier: Int, WireLine) -> Void)?
    /// Headers added to every request unless the request sets the same field.
    public var httpAdditionalHeaders = HTTPHeaders()
    /// The User-Agent sent when neither the request nor `httpAdditionalHeaders` names one (a field with an empty
    /// value there sends none), as URLSession and curl send their own: some servers refuse a request without one.
    /// Nil sends none.
    public var userAgent: String? = SluiceVersion.userAgent
    public var httpMaximumConnectionsPerHost = 6
    /// At most this many tasks transfer at once (0: no limit, as URLSession); a task resumed beyond it waits in
    /// the session and starts, by priority then in the order resumed, on the transfer thread the moment a running
    /// one ends, with no round trip through the delegate (curl's `--parallel-max`). A caller that keeps a few
    /// tasks resumed ahead thereby keeps an HTTP/2 connection's streams busy.
    public var maximumConcurrentTasks = 0
    /// HTTP/2 with several streams on one connection where the server offers it: a task to a host whose
    /// connection is still being set up waits for it rather than opening another.
    public var multiplexingEnabled = true
    /// Which HTTP version requests ask for; `.automatic` is HTTP/2 over TLS where the server offers it.
    public var httpVersion = HTTPVersionPreference.automatic
    /// False accepts any server certificate (curl's `-k`): the connection is encrypted but not authenticated.
    public var tlsVerificationEnabled = true
    /// A PEM bundle of trusted certificates used instead of the system's store; nil uses the system's.
    public var caFile: String?
    /// Where requests go: through the proxy the environment names (`http_proxy`, `https_proxy`, `all_proxy`,
    /// `no_proxy`, as curl reads them), straight to the server, or through a given proxy.
    public var proxy = ProxySetting.environment
    /// Hosts reached without the proxy, in `no_proxy`'s syntax ("localhost,.example.org,10.0.0.0/8", "*" for
    /// all); nil reads `no_proxy` (or `NO_PROXY`) from the environment, even with a proxy given here.
    public var proxyBypass: String?
    /// URLSession's and the Fetch standard's limit.
    public var maximumRedirects = 20
    /// Bytes handed to the delegate but not yet consumed, per task, above which the transfer pauses.
    public var maximumBufferedBytes = 2 << 20
    /// libcurl's receive buffer size (it still hands over at most 16 KiB per callback).
    public var receiveBufferSize = 256 << 10
    /// The most body bytes gathered into one `didReceive data` call within one turn of the transfer loop.
    public var deliveryChunkSize = 256 << 10
    /// Where download tasks create their files. Put it on the same file system as the files' final places so
    /// that moving a finished download is a rename, not a copy.
    public var downloadDirectory: String = {
        if let dir = getenv("TMPDIR"), dir.pointee != 0 { return String(cString: dir) }
        return "/tmp"
    }()
    /// The session's cookies (each configuration starts with its own empty store); nil keeps none.
    public var httpCookieStorage: CookieStorage? = CookieStorage()
    /// Whether requests carry the stored cookies that match them (a request's own Cookie field always wins).
    public var httpShouldSetCookies = true
    /// Where default handling of an authentication challenge looks for a credential.
    public var credentialStorage: CredentialStorage? = .shared
    /// Credentials from `~/.netrc` for the hosts it names, sent without a challenge (curl's `--netrc`).
    public var usesNetrc = false
    /// The whole session's receive rate in bytes per second, shared fairly by its running transfers; nil: no limit.
    /// `Session.setMaximumBytesPerSecond` changes it while they run.
    public var maximumBytesPerSecond: Int64?

    public init() {}

    public static var `default`: SessionConfiguration { SessionConfiguration() }

    /// A session whose tasks belong to the background daemon of this identifier (`sluice daemon --id`), where
    /// they go on after this process ends. Opened with `BackgroundSession` (module SluiceDaemon), which starts
    /// the daemon when absent; a `Session` cannot run it and stops the program if given one.
    public static func background(identifier: String) -> SessionConfiguration {
        var configuration = SessionConfiguration()
        configuration.identifier = identifier
        return configuration
    }

    /// The background session's identifier; nil for a session of this process.
    public private(set) var identifier: String?

    /// The same as `default`, for code written for URLSession: a session keeps no cache, cookie or credential
    /// on disk either way.
    public static var ephemeral: SessionConfiguration { SessionConfiguration() }
}

/// The HTTP version a request asks for (curl's `--http1.1`, `--http2`, `--http2-prior-knowledge`).
public enum HTTPVersionPreference: String, Sendable, CaseIterable {
    /// HTTP/2 when TLS negotiates it (ALPN), HTTP/1.1 otherwise.
    case automatic
    case http1_1
    /// HTTP/2 over TLS; over cleartext, HTTP/1.1 with an offer to upgrade (h2c).
    case http2
    /// HTTP/2 from the first byte, also over cleartext, for servers known to speak it.
    case http2PriorKnowledge
}

/// Whether and how requests go through a proxy.
public enum ProxySetting: Sendable, Equatable {
    /// The proxy named by `http_proxy`, `HTTPS_PROXY`, `ALL_PROXY` and bypassed for `NO_PROXY` (either case
    /// for each but `http_proxy`, which is lower case only, as curl reads them); none when they are unset.
    case environment
    /// Straight to the server whatever the environment says.
    case direct
    case server(ProxyServer)
}

/// A proxy: HTTP (https targets through CONNECT), HTTPS, or SOCKS, with optional credentials.
public struct ProxyServer: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case http, https, socks4, socks4a, socks5
        /// SOCKS5 with the host name resolved by the proxy, not here.
        case socks5h
    }

    public var kind: Kind
    public var host: String
    public var port: Int
    public var username: String?
    public var password: String?
    /// How the credentials are used: `.basic` sends them with the first request (curl's default); `.digest`
    /// answers only a Digest challenge and `.other` whichever the proxy makes (curl's --proxy-digest and
    /// --proxy-anyauth), nothing being sent before the proxy asks. libcurl does the handshake.
    public var authenticationMethod: AuthenticationMethod = .basic

    public init(kind: Kind, host: String, port: Int, username: String? = nil, password: String? = nil) {
        self.kind = kind
        self.host = host
        self.port = port
        self.username = username
        self.password = password
    }

    /// Reads curl's proxy syntax: `[scheme://][user[:password]@]host[:port]`, http when no scheme is given,
    /// port 1080 (443 for https) when none is; the user and password may be percent-encoded. Nil when the
    /// scheme is not a proxy kind or there is no host.
    public init?(url text: String) {
        var rest = Substring(text)
        var kind = Kind.http
        if let colon = rest.firstIndex(of: ":"), rest[colon...].hasPrefix("://") {
            guard let named = Kind(rawValue: rest[..<colon].lowercased()) else { return nil }
            kind = named
            rest = rest[rest.index(colon, offsetBy: 3)...]
        }
        if let slash = rest.firstIndex(of: "/") { rest = rest[..<slash] }  // curl ignores a path on a proxy
        var username: String?
        var password: String?
        if let at = rest.lastIndex(of: "@") {
            let userinfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            func decoded(_ part: Substring) -> String {
                DataURL.percentDecoded(String(part)).map { String(decoding: $0, as: UTF8.self) } ?? String(part)
            }
            if let colon = userinfo.firstIndex(of: ":") {
                username = decoded(userinfo[..<colon])
                password = decoded(userinfo[userinfo.index(after: colon)...])
            } else {
                username = decoded(userinfo)
            }
        }
        var host = rest
        var port = kind == .https ? 443 : 1080
        if host.hasPrefix("[") {  // [::1]:8080
            guard let close = host.firstIndex(of: "]") else { return nil }
            let after = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if after.hasPrefix(":") {
                guard let number = Int(after.dropFirst()), (1...65535).contains(number) else { return nil }
                port = number
            } else if !after.isEmpty {
                return nil
            }
        } else if let colon = host.lastIndex(of: ":") {
            guard let number = Int(host[host.index(after: colon)...]), (1...65535).contains(number) else { return nil }
            port = number
            host = host[..<colon]
        }
        guard !host.isEmpty else { return nil }
        self.init(kind: kind, host: String(host), port: port, username: username, password: password)
    }

    /// What libcurl's CURLOPT_PROXY takes: the kind as a scheme, the host (an IPv6 address in brackets), the port.
    var curlURL: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(kind.rawValue)://\(shownHost):\(port)"
    }
}
