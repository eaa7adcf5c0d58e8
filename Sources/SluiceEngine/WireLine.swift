// What libcurl says of a transfer as it goes, line by line (curl -v): its own notes (connecting, TLS, reuse) and
// the header lines sent and received. Asked for with `SessionConfiguration.wireMonitor`; nothing is made without it.

public struct WireLine: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// libcurl's own note ("  Trying 127.0.0.1:80...", "Connected to ...").
        case info
        /// A line of the request head as sent; the empty line ends the head.
        case headerOut
        /// A line of a response head as received (1xx and redirects too); the empty line ends the head.
        case headerIn
    }

    public let kind: Kind
    /// Without its line end, as it came: the server's text is not sanitized here.
    public let text: String

    public init(_ kind: Kind, _ text: String) {
        self.kind = kind
        self.text = text
    }

    /// The lines of one libcurl debug callback's bytes (a request head comes whole, a note or a response line one
    /// at a time), each without its CR LF. A chunk that ends with a line end has no empty line after it; the empty
    /// line that ends a head is one of its own.
    static func lines(_ kind: Kind, _ bytes: UnsafeRawBufferPointer) -> [WireLine] {
        var lines: [WireLine] = []
        var start = 0
        var i = 0
        while i < bytes.count {
            if bytes[i] == 10 {
                var end = i
                if end > start, bytes[end - 1] == 13 { end -= 1 }
                lines.append(WireLine(kind, String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)))
                start = i + 1
            }
            i += 1
        }
        if start < bytes.count {
            lines.append(WireLine(kind, String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start...]), as: UTF8.self)))
        }
        return lines
    }
}
