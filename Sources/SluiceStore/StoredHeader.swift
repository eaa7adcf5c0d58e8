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
    public var displayValue: String { Redacted.value(value, ofHeader: name) }

    public static let redacted = Redacted.marker
}
