// A request header as stored, and how it is shown: credentials and cookies never appear in a listing.

public struct StoredHeader: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// The value to print: Authorization and Proxy-Authorization keep only their scheme ("Basic [redacted]"),
    /// Cookie only its cookies' names ("session=[redacted]"), because a history listing gets pasted into
    /// bug reports.
    public var displayValue: String {
        switch name.lowercased() {
        case "authorization", "proxy-authorization":
            let scheme = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            return scheme.count == 2 ? scheme[0] + " " + Self.redacted : Self.redacted
        case "cookie":
            let names = value.split(separator: ";").map { pair -> String in
                let name = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                return name.trimmingSpaces() + "=" + Self.redacted
            }
            return names.isEmpty ? Self.redacted : names.joined(separator: "; ")
        default:
            return value
        }
    }

    public static let redacted = "[redacted]"
}

extension Substring {
    fileprivate func trimmingSpaces() -> String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }
}
