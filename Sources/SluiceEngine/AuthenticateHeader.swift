// Reads WWW-Authenticate and Proxy-Authenticate: which scheme a server asks for, and in which realm.

enum AuthenticateHeader {
    /// The strongest challenge among `values` that libcurl can answer (Digest over Basic over Bearer over the
    /// rest), with its realm; nil when none names a scheme.
    static func strongest(_ values: [String]) -> (method: AuthenticationMethod, realm: String?)? {
        let found = values.flatMap(challenges)
        let rank: [AuthenticationMethod] = [.digest, .basic, .bearer, .other]
        return rank.lazy.compactMap { method in found.first { $0.method == method } }.first
    }

    /// Every challenge in one header value: a scheme token, then parameters up to the next scheme.
    static func challenges(in value: String) -> [(method: AuthenticationMethod, realm: String?)] {
        var result: [(method: AuthenticationMethod, realm: String?)] = []
        for token in split(value) {
            if let equals = token.firstIndex(of: "="), !token[..<equals].contains(" ") {
                // A parameter of the current challenge (or token68); only the realm is kept.
                let name = token[..<equals].trimmingSpaces.lowercased()
                if name == "realm", !result.isEmpty {
                    result[result.count - 1].realm = unquoted(String(token[token.index(after: equals)...]))
                }
                continue
            }
            let words = token.trimmingSpaces.split(separator: " ", maxSplits: 1)
            guard let scheme = words.first else { continue }
            result.append((method: method(named: String(scheme)), realm: nil))
            if words.count == 2, let equals = words[1].firstIndex(of: "="),
               words[1][..<equals].trimmingSpaces.lowercased() == "realm" {
                result[result.count - 1].realm = unquoted(String(words[1][words[1].index(after: equals)...]))
            }
        }
        return result
    }

    private static func method(named scheme: String) -> AuthenticationMethod {
        switch scheme.lowercased() {
        case "basic": .basic
        case "digest": .digest
        case "bearer": .bearer
        default: .other
        }
    }

    /// Splits at commas outside quotes.
    private static func split(_ value: String) -> [Substring] {
        var parts: [Substring] = []
        var start = value.startIndex
        var quoted = false
        var i = value.startIndex
        while i < value.endIndex {
            let c = value[i]
            if c == "\"" { quoted.toggle() }
            if c == "\\", quoted, value.index(after: i) < value.endIndex { i = value.index(after: i) }
            if c == ",", !quoted {
                parts.append(value[start..<i])
                start = value.index(after: i)
            }
            i = value.index(after: i)
        }
        parts.append(value[start...])
        return parts.filter { !$0.trimmingSpaces.isEmpty }
    }

    private static func unquoted(_ text: String) -> String {
        let t = text.trimmingSpaces
        guard t.count >= 2, t.first == "\"", t.last == "\"" else { return String(t) }
        var out = ""
        var escaped = false
        for c in t.dropFirst().dropLast() {
            if escaped { out.append(c); escaped = false } else if c == "\\" { escaped = true } else { out.append(c) }
        }
        return out
    }
}

private extension StringProtocol {
    var trimmingSpaces: Substring {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return s
    }
}
