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
    /// Headers added to every request unless the request sets the same field.
    public var httpAdditionalHeaders = HTTPHeaders()
    public var httpMaximumConnectionsPerHost = 6
    /// HTTP/2 with several streams on one connection where the server offers it.
    public var multiplexingEnabled = true
    public var tlsVerificationEnabled = true
    /// A PEM bundle of trusted certificates; nil uses the system's.
    public var caFile: String?
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

    public init() {}

    public static var `default`: SessionConfiguration { SessionConfiguration() }

    /// The same as `default`, for code written for URLSession: a session keeps no cache, cookie or credential
    /// on disk either way.
    public static var ephemeral: SessionConfiguration { SessionConfiguration() }
}
