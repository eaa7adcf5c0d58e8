// A proxy's 407 to CONNECT as a challenge: libcurl keeps the tunnel's response head to itself, so what the proxy
// asked for is read from what libcurl learned of it (the connect code and the methods offered), not from headers.

enum TunnelChallenge {
    /// The proxy's protection space when the tunnel was refused with a 407 that offered a method; nil otherwise.
    /// `offered` is libcurl's CURLINFO_PROXYAUTH_AVAIL bit set; `address` and `port` are the proxy's (the peer
    /// libcurl was connected to). The realm stays unknown: it was only in the suppressed head.
    static func space(connectCode: Int, offered: Int, address: String, port: Int) -> ProtectionSpace? {
        guard connectCode == 407, offered != 0 else { return nil }
        return ProtectionSpace(host: address, port: port, protocol: "http", realm: nil,
                               authenticationMethod: strongest(offered), isProxy: true)
    }

    /// The method answered, strongest first as for a server's challenge: Digest, then Basic, then what libcurl
    /// negotiates itself (NTLM, Negotiate).
    static func strongest(_ offered: Int) -> AuthenticationMethod {
        if offered & 2 != 0 { return .digest }  // CURLAUTH_DIGEST
        if offered & 1 != 0 { return .basic }  // CURLAUTH_BASIC
        return .other
    }
}
