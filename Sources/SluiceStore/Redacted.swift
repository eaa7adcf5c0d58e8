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

    /// A URL's password replaced, as wget shows one: `http://carol:*password*@host/`. The task keeps the URL whole
    /// where it is fetched from; a user name alone is no secret and stays.
    public static func url(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "@")) else { return text }  // most URLs: one pass over the bytes
        let characters = Array(text)
        var start: Int?  // after "://"
        for i in 0..<max(0, characters.count - 2) where characters[i] == ":" && characters[i + 1] == "/" && characters[i + 2] == "/" {
            start = i + 3
            break
        }
        guard let start else { return text }
        var end = start
        while end < characters.count, !"/?#".contains(characters[end]) { end += 1 }
        guard let at = characters[start..<end].lastIndex(of: "@"),
              let colon = characters[start..<at].firstIndex(of: ":") else { return text }
        return String(characters[..<colon]) + ":*password*" + String(characters[at...])
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
