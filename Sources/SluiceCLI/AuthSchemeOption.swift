// curl's --basic, --digest and --anyauth (and their --proxy- twins): how -u's and --proxy-user's credentials are used.
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SluiceEngine

/// For the server's credentials (-u, --netrc). The last of the three flags given wins, as in curl.
enum ServerAuthOption: String, EnumerableFlag, Sendable {
    case basic, digest, anyauth

    static func help(for value: Self) -> ArgumentHelp? {
        switch value {
        case .basic: "Send -u's credentials as Basic with the first request (the default)."
        case .digest: "Answer a Digest challenge with -u's credentials; nothing is sent before the server asks."
        case .anyauth: "Answer whichever challenge the server makes (Digest, Basic, NTLM, Negotiate); nothing is sent before it asks."
        }
    }

    /// The challenges the credentials answer; nil for Basic, which is sent before any challenge.
    var answeredMethods: [AuthenticationMethod]? {
        switch self {
        case .basic: nil
        case .digest: [.digest]
        case .anyauth: [.digest, .basic, .other]
        }
    }
}

/// For the proxy's credentials (--proxy-user, or the user in -x's URL).
enum ProxyAuthOption: String, EnumerableFlag, Sendable {
    case proxyBasic, proxyDigest, proxyAnyauth

    static func name(for value: Self) -> NameSpecification {
        switch value {
        case .proxyBasic: .customLong("proxy-basic")
        case .proxyDigest: .customLong("proxy-digest")
        case .proxyAnyauth: .customLong("proxy-anyauth")
        }
    }

    static func help(for value: Self) -> ArgumentHelp? {
        switch value {
        case .proxyBasic: "Send the proxy's credentials as Basic with the first request (the default)."
        case .proxyDigest: "Answer the proxy's Digest challenge with its credentials; nothing is sent before it asks."
        case .proxyAnyauth: "Answer whichever challenge the proxy makes; nothing is sent before it asks."
        }
    }

    /// What the engine's `ProxyServer.authenticationMethod` takes: libcurl does the proxy's handshake.
    var method: AuthenticationMethod {
        switch self {
        case .proxyBasic: .basic
        case .proxyDigest: .digest
        case .proxyAnyauth: .other
        }
    }
}

extension CredentialStorage {
    /// Stores `credential` as the answer to `methods`' challenges from `url`'s origin, in any realm.
    func enter(_ credential: Credential, for url: URL, answering methods: [AuthenticationMethod]) {
        guard let host = url.host, let scheme = url.scheme?.lowercased() else { return }
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        for method in methods {
            set(credential, for: ProtectionSpace(host: host, port: port, protocol: scheme, realm: nil, authenticationMethod: method))
        }
    }
}
