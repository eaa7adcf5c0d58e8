// A session's cookies: what responses set (within the accept policy), what requests send, and the Netscape
// cookie file that curl (-b/-c) and wget (--load-cookies/--save-cookies) read and write.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import SluiceLock

public enum CookieAcceptPolicy: String, Sendable {
    case always
    case never
    /// Only cookies for the domain of the task's original request (URLSession's main document).
    case onlyFromMainDocumentDomain
}

public final class CookieStorage: Sendable {
    private struct State {
        var cookies: [Cookie] = []
        var policy: CookieAcceptPolicy = .always
        var changed: (@Sendable () -> Void)?
    }
    private let state = Locked(State())

    public init(acceptPolicy: CookieAcceptPolicy = .always) {
        state.withLock { $0.policy = acceptPolicy }
    }

    public var acceptPolicy: CookieAcceptPolicy {
        get { state.withLock { $0.policy } }
        set { state.withLock { $0.policy = newValue } }
    }

    /// Every cookie that has not expired.
    public var cookies: [Cookie] {
        let now = Self.now()
        return state.withLock { $0.cookies.filter { !$0.isExpired(now: now) } }
    }

    /// Calls `body` (on the thread that changed it) after each change to the cookies: a keeper saves then, rather
    /// than on a timer that wakes an idle process.
    public func onChange(_ body: @escaping @Sendable () -> Void) { state.withLock { $0.changed = body } }

    /// Replaces the cookie with the same name, domain and path; one that has expired is removed instead.
    public func setCookie(_ cookie: Cookie) {
        let now = Self.now()
        let changed = state.withLock { s in
            s.cookies.removeAll { $0.name == cookie.name && $0.domain == cookie.domain && $0.path == cookie.path }
            if !cookie.isExpired(now: now) { s.cookies.append(cookie) }
            return s.changed
        }
        changed?()
    }

    public func deleteCookie(_ cookie: Cookie) {
        let changed = state.withLock { s in
            s.cookies.removeAll { $0.name == cookie.name && $0.domain == cookie.domain && $0.path == cookie.path }
            return s.changed
        }
        changed?()
    }

    public func removeAll() {
        let changed = state.withLock { s in
            s.cookies.removeAll()
            return s.changed
        }
        changed?()
    }

    /// The cookies a request to `url` carries, longest path first (RFC 6265 5.4).
    public func cookies(for url: URL) -> [Cookie] {
        let now = Self.now()
        return state.withLock { $0.cookies.filter { $0.matches(url, now: now) } }.sorted { $0.path.count > $1.path.count }
    }

    /// The `Cookie` header for a request to `url`, or nil when no cookie goes with it.
    func header(for url: URL) -> String? {
        let matching = cookies(for: url)
        return matching.isEmpty ? nil : matching.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// Takes the `Set-Cookie` fields of a response from `url`, within the accept policy.
    func store(_ headers: HTTPHeaders, from url: URL, mainDocument: URL) {
        let values = headers.fields.filter { $0.name.caseInsensitiveEquals("Set-Cookie") }.map(\.value)
        guard !values.isEmpty else { return }
        let now = Self.now()
        let policy = acceptPolicy
        for value in values {
            guard let cookie = Cookie.parse(setCookie: value, from: url, now: now) else { continue }
            switch policy {
            case .never: continue
            case .onlyFromMainDocumentDomain:
                guard let main = mainDocument.host.map(Cookie.canonical), Cookie.domainMatches(main, cookie.domain)
                    || Cookie.domainMatches(cookie.domain, main) else { continue }
            case .always: break
            }
            setCookie(cookie)
        }
    }

    // MARK: The Netscape cookie file

    /// Reads a cookie file as curl and wget write it (tab-separated, `#HttpOnly_` prefix, 0 for a session
    /// cookie). Lines that are not cookies are skipped, as curl does; returns how many were read.
    @discardableResult
    public func importNetscape(_ text: String) -> Int {
        var count = 0
        for rawLine in text.split(whereSeparator: \.isNewline) {
            var line = Substring(rawLine)
            var httpOnly = false
            if line.hasPrefix("#HttpOnly_") {
                httpOnly = true
                line = line.dropFirst("#HttpOnly_".count)
            } else if line.hasPrefix("#") || line.allSatisfy(\.isWhitespace) {
                continue
            }
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 7, let expiry = Double(f[4]) else { continue }
            let includeSubdomains = f[1].uppercased() == "TRUE"
            setCookie(Cookie(name: f[5], value: f[6...].joined(separator: "\t"), domain: f[0], hostOnly: !includeSubdomains,
                             path: Self.jarPath(f[2]), expires: expiry == 0 ? nil : expiry, secure: f[3].uppercased() == "TRUE",
                             httpOnly: httpOnly))
            count += 1
        }
        return count
    }

    /// The cookies in the Netscape format (session cookies included, with 0 as curl writes them).
    public func exportNetscape() -> String {
        var text = "# Netscape HTTP Cookie File\n# Written by sluice. Edit at your own risk.\n\n"
        for c in cookies.sorted(by: { ($0.domain, $0.path, $0.name) < ($1.domain, $1.path, $1.name) }) {
            let domain = (c.httpOnly ? "#HttpOnly_" : "") + (c.hostOnly ? "" : ".") + c.domain
            let fields = [domain, c.hostOnly ? "FALSE" : "TRUE", c.path, c.secure ? "TRUE" : "FALSE",
                          String(Int64(c.expires ?? 0)), c.name, c.value]
            text += fields.joined(separator: "\t") + "\n"
        }
        return text
    }

    /// A cookie's path as curl keeps it, from a jar or a Set-Cookie: without a trailing `/` (but `/` itself). curl
    /// writes a cookie set by /cookies/set with the path `/cookies/` and sends it to /cookies too; read as written,
    /// it went only below /cookies/ (found by a tester), and a Path=/x/ beside it made a second cookie.
    static func jarPath(_ path: String) -> String {
        path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
    }

    /// Reads a cookie file; a missing file is no cookies, as for curl's `-b FILE`.
    public func load(from path: String) throws(TransferError) {
        switch WholeFile.read(path) {
        case .success(let data): importNetscape(String(decoding: data, as: UTF8.self))
        case .failure(let failure) where failure.isMissing: return
        case .failure(let failure):
            throw TransferError(.cannotReadFile, "cannot read the cookie file \(path): \(failure.reason)")
        }
    }

    /// Writes the cookie file atomically (a temporary file renamed over it), readable by its owner only. A link is
    /// written through, as curl's fopen writes (the kernel's checks on following links in shared directories
    /// apply, which a rename over a resolved path would pass by), and a device or pipe (`-c /dev/null`, which curl
    /// users type to keep cookies for one command) is written into: a rename replaced either with a regular file,
    /// and as root put one in the place of /dev/null (found by a tester). The message says why it could not (a
    /// directory or socket named, a missing folder, no permission).
    public func save(to path: String) throws(TransferError) {
        func failure(_ reason: String) -> TransferError { TransferError(.cannotWriteToFile, "cannot write the cookie file \(path): \(reason)") }
        var info = stat()
        // "-c DIR/" would otherwise leave DIR/.sluice-new behind a failed rename.
        if path.hasSuffix("/") { throw failure("a name ending in / is a directory's") }
        if lstat(path, &info) == 0 {
            switch info.st_mode & S_IFMT {
            case S_IFREG: break
            case S_IFDIR: throw failure("it is a directory")
            case S_IFLNK, S_IFCHR, S_IFIFO: return try writeInto(path, failure)
            case S_IFSOCK: throw failure("it is a socket")
            default: throw failure("it is not a regular file")
            }
        }
        let temporary = path + ".sluice-new"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw failure(String(cString: strerror(errno))) }
        let bytes = Array(exportNetscape().utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let writeError = errno
        let synced = fsync(fd) == 0
        close(fd)
        guard written == bytes.count, synced, rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(written == bytes.count ? errno : writeError))
            unlink(temporary)
            throw failure(reason)
        }
    }

    /// The jar written straight into `path` (a link, a device, a pipe), not renamed over it.
    private func writeInto(_ path: String, _ failure: (String) -> TransferError) throws(TransferError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0o600)
        guard fd >= 0 else { throw failure(String(cString: strerror(errno))) }
        defer { close(fd) }
        let bytes = Array(exportNetscape().utf8)
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return write(fd, base + done, raw.count - done)
            }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw failure(String(cString: strerror(errno))) }
            done += n
        }
    }

    private static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
