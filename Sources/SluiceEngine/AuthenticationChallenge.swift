// Authentication as URLSession models it: a challenge for a protection space, the delegate's disposition, and a
// store of credentials that default handling consults.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SluiceLock

public enum AuthenticationMethod: String, Sendable, Hashable, Codable {
    case basic, digest, bearer
    /// The server's certificate did not verify: answer `.useCredential(.serverTrust)` to accept it for this
    /// task's requests to that host and port, anything else to fail with the verification error.
    case serverTrust
    /// A scheme libcurl may still negotiate (NTLM, Negotiate): answered with a credential, libcurl picks it.
    case other
}

/// Who asks: a server (401) or a proxy (407), at one origin and realm, by one method.
public struct ProtectionSpace: Sendable, Hashable, Codable, CustomStringConvertible {
    public let host: String
    public let port: Int
    /// The scheme of the origin ("http", "https"), or of the proxy.
    public let `protocol`: String
    public let realm: String?
    public let authenticationMethod: AuthenticationMethod
    public let isProxy: Bool

    public init(host: String, port: Int, protocol: String, realm: String?, authenticationMethod: AuthenticationMethod,
                isProxy: Bool = false) {
        self.host = host.lowercased()
        self.port = port
        self.protocol = `protocol`.lowercased()
        self.realm = realm
        self.authenticationMethod = authenticationMethod
        self.isProxy = isProxy
    }

    public var description: String {
        "\(isProxy ? "proxy " : "")\(authenticationMethod.rawValue) \(`protocol`)://\(host):\(port) realm \(realm ?? "-")"
    }

    /// The same origin, kind and method, whatever the realm.
    func sameOrigin(as other: ProtectionSpace) -> Bool {
        guard host == other.host, port == other.port, self.protocol == other.protocol else { return false }
        return isProxy == other.isProxy && authenticationMethod == other.authenticationMethod
    }

    /// Whether a request to `url` goes to this origin (a credential is never sent anywhere else).
    func covers(_ url: URL) -> Bool {
        guard !isProxy, let host = url.host?.lowercased(), let scheme = url.scheme?.lowercased() else { return false }
        return host == self.host && scheme == `protocol` && (url.port ?? Self.defaultPort(scheme)) == port
    }

    static func defaultPort(_ scheme: String) -> Int { scheme == "https" ? 443 : 80 }
}

public struct Credential: Sendable, Hashable {
    public let user: String
    public let password: String
    /// Not a user's credential but the acceptance of a server's certificate (URLSession's `URLCredential(trust:)`).
    public let isServerTrust: Bool

    public init(user: String, password: String) {
        self.user = user
        self.password = password
        isServerTrust = false
    }

    private init(trust: Void) {
        user = ""
        password = ""
        isServerTrust = true
    }

    /// The answer to a `.serverTrust` challenge that accepts the certificate.
    public static let serverTrust = Credential(trust: ())
}

public struct AuthenticationChallenge: Sendable {
    public let protectionSpace: ProtectionSpace
    /// How many credentials for this space this task has had refused so far.
    public let previousFailureCount: Int
    /// The credential that was just refused, or the stored one default handling would use.
    public let proposedCredential: Credential?
    /// The 401 or 407 response that asked; nil for a server-trust challenge, which comes before any response,
    /// and for a proxy's 407 to CONNECT (an https request through an HTTP proxy), whose head libcurl keeps.
    public let failureResponse: Response?
    /// Why the certificate was not trusted, or the tunnel refused (libcurl's words), for those two challenges.
    public let error: TransferError?
}

/// The delegate's answer to a challenge, URLSession's four.
public enum ChallengeDisposition: Sendable, Equatable {
    /// Send the request again with this credential (Basic and Digest: libcurl does the handshake).
    case useCredential(Credential)
    /// A stored credential for the space if there is one that has not just failed; otherwise the 401 or 407 is
    /// the task's response.
    case performDefaultHandling
    /// The task ends with `.cancelled`.
    case cancelAuthenticationChallenge
    /// The 401 or 407 is the task's response.
    case rejectProtectionSpace

    var name: String {
        switch self {
        case .useCredential: "useCredential"
        case .performDefaultHandling: "performDefaultHandling"
        case .cancelAuthenticationChallenge: "cancelAuthenticationChallenge"
        case .rejectProtectionSpace: "rejectProtectionSpace"
        }
    }
}

/// Credentials by protection space, in memory. Default handling reads it; nothing is written to disk.
public final class CredentialStorage: Sendable {
    public static let shared = CredentialStorage()
    private let stored = Locked<[ProtectionSpace: Credential]>([:])

    public init() {}

    public func set(_ credential: Credential, for space: ProtectionSpace) { stored.withLock { $0[space] = credential } }

    public func remove(for space: ProtectionSpace) { stored.withLock { $0[space] = nil } }

    /// The credential for exactly this space, or failing that for the same origin and method in any realm.
    public func credential(for space: ProtectionSpace) -> Credential? {
        stored.withLock { all in
            if let exact = all[space] { return exact }
            return all.first { key, _ in key.sameOrigin(as: space) }?.value
        }
    }
}
