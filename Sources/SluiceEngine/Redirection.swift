// The request a redirect leads to. The engine follows redirects itself (not libcurl) so that the delegate's
// willPerformHTTPRedirection sees each one and may change or refuse it; these are the rules it proposes.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

enum Redirection {
    /// The statuses that redirect when they carry a Location (300 and 304 do not).
    static func redirects(_ status: Int?) -> Bool {
        switch status {
        case 301, 302, 303, 307, 308: true
        default: false
        }
    }

    /// A Location header's URL (already trimmed by the header parser), resolved against the URL that answered (a
    /// Location may be relative). Spaces, which some servers leave in, are encoded as libcurl would.
    static func target(location: String, from base: URL) -> URL? {
        let text = location.split(separator: " ", omittingEmptySubsequences: false).joined(separator: "%20")
        guard !text.isEmpty, let url = URL(string: text, relativeTo: base)?.absoluteURL else { return nil }
        return url
    }

    /// The next request, by the rules browsers and URLSession follow: 303 turns every method but HEAD into GET;
    /// 301 and 302 turn POST into GET; 307 and 308 keep the method and the body. A request that becomes GET
    /// loses its body and the headers that described it; a request that leaves the origin loses its credentials.
    static func request(after request: Request, status: Int, location: URL) -> Request {
        var next = request
        next.url = location
        let method = request.method.uppercased()
        if (status == 303 && method != "HEAD") || ((status == 301 || status == 302) && method == "POST") {
            next.method = "GET"
            next.body = nil
            for name in ["Content-Type", "Content-Length", "Content-Encoding", "Transfer-Encoding"] {
                next.headers.remove(name)
            }
        }
        if !sameOrigin(request.url, location) {
            next.headers.remove("Authorization")
            next.headers.remove("Cookie")
        }
        return next
    }

    /// True when the method changed to GET: an upload task's body then stays unsent.
    static func dropsBody(from request: Request, to next: Request) -> Bool {
        next.method == "GET" && request.method.uppercased() != "GET"
    }

    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased()
            && effectivePort(a) == effectivePort(b)
    }

    private static func effectivePort(_ url: URL) -> Int? {
        url.port ?? (url.scheme?.lowercased() == "https" ? 443 : url.scheme?.lowercased() == "http" ? 80 : nil)
    }
}
