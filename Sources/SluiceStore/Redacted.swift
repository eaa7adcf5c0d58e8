// Secrets in request headers made safe to show: Cookie, Authorization and Proxy-Authorization never appear whole.

/// How a header from a task (typed, or from a pasted cURL command) is shown in history, `ls --json` and the UI.
/// The task keeps the real value in the store (0600) so that it can resume; listings get pasted into bug reports.
public enum Redacted {
    public static let marker = "[redacted]"

    /// Whether a header's value is a secret.
    public static func isSecret(_ name: String) -> Bool {
        ["cookie", "authorization", "proxy-authorization"].contains(name.lowercased())
    }

    /// The value to show: Authorization and Proxy-Authorization keep only their scheme ("Basic [redacted]"),
    /// Cookie only its cookies' names ("session=[redacted]; theme=[redacted]"); any other header as it is.
    public static func value(_ value: String, ofHeader name: String) -> String {
        switch name.lowercased() {
        case "authorization", "proxy-authorization":
            let scheme = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            return scheme.count == 2 ? scheme[0] + " " + marker : marker
        case "cookie":
            let names = value.split(separator: ";").map { pair -> String in
                let name = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                return name.trimmingSpaces() + "=" + marker
            }
            return names.isEmpty ? marker : names.joined(separator: "; ")
        default:
            return value
        }
    }

    /// A "Name: value" line with its value redacted as `value(_:ofHeader:)` does; a line without a colon as it is.
    public static func headerLine(_ line: String) -> String {
        guard let colon = line.firstIndex(of: ":") else { return line }
        let name = String(line[..<colon])
        let rest = line[line.index(after: colon)...]
        return name + ": " + value(rest.trimmingSpaces(), ofHeader: name)
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }
}
