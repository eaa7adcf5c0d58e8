// The HTTP version a transfer's metrics name ("http/1.1", "h2"), once, for the two places that print it:
// `get -I`'s status line (curl -I's "HTTP/2 200") and `-w`'s %{http_version} (curl's "2").

enum WireVersion {
    case http1_0, http1_1, http2, http3

    /// Nil for a name the metrics do not give for HTTP (none at all, when no server answered).
    init?(networkProtocol: String?) {
        switch networkProtocol {
        case "http/1.0": self = .http1_0
        case "http/1.1": self = .http1_1
        case "h2": self = .http2
        case "h3": self = .http3
        default: return nil
        }
    }

    /// As a status line begins: "HTTP/1.1", "HTTP/2".
    var statusLineName: String {
        switch self {
        case .http1_0: "HTTP/1.0"
        case .http1_1: "HTTP/1.1"
        case .http2: "HTTP/2"
        case .http3: "HTTP/3"
        }
    }

    /// As curl's -w %{http_version} writes it: "1.1", "2".
    var curlNumber: String {
        switch self {
        case .http1_0: "1"
        case .http1_1: "1.1"
        case .http2: "2"
        case .http3: "3"
        }
    }
}
