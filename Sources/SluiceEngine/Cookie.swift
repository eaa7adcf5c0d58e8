// One HTTP cookie and the Set-Cookie parsing that makes it (RFC 6265 section 5.2), pure.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

public struct Cookie: Sendable, Hashable {
    public var name: String
    public var value: String
    /// Lowercased, without a leading dot.
    public var domain: String
    /// True when the cookie goes to `domain` only, not to its subdomains (no Domain attribute was given).
    public var hostOnly: Bool
    public var path: String
    /// Seconds since 1970; nil for a session cookie.
    public var expires: Double?
    public var secure: Bool
    public var httpOnly: Bool

    public init(name: String, value: String, domain: String, hostOnly: Bool = true, path: String = "/",
                expires: Double? = nil, secure: Bool = false, httpOnly: Bool = false) {
        self.name = name
        self.value = value
        self.domain = Self.canonical(domain)
        self.hostOnly = hostOnly
        self.path = path
        self.expires = expires
        self.secure = secure
        self.httpOnly = httpOnly
    }

    /// The cookie a `Set-Cookie` value sets for a response from `url`, or nil when the value is malformed or
    /// names a domain the response's host may not set (another site, or a bare top-level name).
    static func parse(setCookie header: String, from url: URL, now: Double) -> Cookie? {
        guard let host = url.host.map(canonical), !host.isEmpty else { return nil }
        var parts = header.split(separator: ";", omittingEmptySubsequences: false).makeIterator()
        guard let pair = parts.next(), let equals = pair.firstIndex(of: "=") else { return nil }
        let name = trimmed(pair[..<equals])
        let value = trimmed(pair[pair.index(after: equals)...])
        guard !name.isEmpty else { return nil }
        var cookie = Cookie(name: name, value: value, domain: host, path: defaultPath(url))
        var maxAge: Double?
        while let attribute = parts.next() {
            let pieces = attribute.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = trimmed(pieces[0]).lowercased()
            let argument = pieces.count > 1 ? trimmed(pieces[1]) : ""
            switch key {
            case "domain":
                let domain = canonical(argument)
                guard !domain.isEmpty else { continue }
                // The response's host must be the domain or inside it, and a domain needs a dot (no "com").
                guard domainMatches(host, domain), domain.contains(".") || domain == host else { return nil }
                cookie.domain = domain
                cookie.hostOnly = false
            case "path":
                if argument.hasPrefix("/") { cookie.path = CookieStorage.jarPath(argument) }  // as curl: /x/ is /x
            case "max-age":
                if let seconds = Double(argument) { maxAge = seconds }
            case "expires":
                if maxAge == nil, let date = HTTPDate.parse(argument) { cookie.expires = date }
            case "secure":
                cookie.secure = true
            case "httponly":
                cookie.httpOnly = true
            default:
                continue
            }
        }
        if let maxAge { cookie.expires = maxAge <= 0 ? 0 : now + maxAge }  // Max-Age wins over Expires
        return cookie
    }

    /// Whether this cookie goes with a request to `url` at `now`.
    func matches(_ url: URL, now: Double) -> Bool {
        guard let host = url.host.map(Self.canonical), !isExpired(now: now) else { return false }
        if secure && url.scheme?.lowercased() != "https" { return false }
        guard hostOnly ? host == domain : Self.domainMatches(host, domain) else { return false }
        return Self.pathMatches(url.path.isEmpty ? "/" : url.path, path)
    }

    func isExpired(now: Double) -> Bool { expires.map { $0 <= now } ?? false }

    static func canonical(_ domain: String) -> String {
        var d = domain.lowercased()
        while d.hasPrefix(".") { d.removeFirst() }
        return d
    }

    /// RFC 6265 5.1.3: the host is the domain, or ends with "." + domain and is a name, not an address.
    static func domainMatches(_ host: String, _ domain: String) -> Bool {
        if host == domain { return true }
        guard host.hasSuffix("." + domain) else { return false }
        return !host.allSatisfy { $0.isNumber || $0 == "." }  // 10.0.0.1 does not "end with" 0.1
    }

    /// RFC 6265 5.1.4.
    static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        if requestPath == cookiePath { return true }
        guard requestPath.hasPrefix(cookiePath) else { return false }
        return cookiePath.hasSuffix("/") || requestPath.dropFirst(cookiePath.count).first == "/"
    }

    /// RFC 6265 5.1.4: the request path up to its last slash.
    static func defaultPath(_ url: URL) -> String {
        let path = url.path
        guard path.hasPrefix("/"), let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    private static func trimmed(_ text: Substring) -> String {
        String(text.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
