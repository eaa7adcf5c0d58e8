// A config file's `[hosts."example.com"]` rule: what that host's requests get unless the command line says otherwise.
import SluiceViewModel

struct HostRule: Equatable, Sendable {
    /// `example.com`, or `*.example.com` for every name under it (not example.com itself).
    let pattern: String
    /// The header table's line (where the rule was written), for `sluice config`.
    var line: Int
    var split: Setting<Int>?
    var connections: Setting<Int>?
    /// In the file's order; a -H of the same name (any case) replaces one.
    var headers: [(name: String, value: String, line: Int)] = []
    var limitRate: Setting<String>?
    var netrc: Setting<Bool>?

    static func == (a: HostRule, b: HostRule) -> Bool {
        a.pattern == b.pattern && a.line == b.line && a.split == b.split && a.connections == b.connections
            && a.limitRate == b.limitRate && a.netrc == b.netrc
            && a.headers.map { "\($0.name): \($0.value)@\($0.line)" } == b.headers.map { "\($0.name): \($0.value)@\($0.line)" }
    }

    func matches(_ host: String) -> Bool {
        if pattern.hasPrefix("*.") { return host.hasSuffix(pattern.dropFirst()) && host.count > pattern.count - 1 }
        return host == pattern
    }

    static let keys = ["split", "connections", "headers", "user-agent", "referer", "proxy", "limit-rate", "netrc"]

    static func parse(pattern: String, entries: [TOMLEntry], file: String) throws(TOMLError) -> HostRule {
        var rule = HostRule(pattern: pattern, line: entries.first.map { $0.line - 1 } ?? 0)
        if let first = entries.first {
            guard valid(pattern) else {
                throw TOMLError(file: file, line: first.line, key: nil,
                                message: "[hosts.\"\(pattern)\"]: not a host name or *.domain pattern")
            }
        }
        for entry in entries {
            let reader = ValueReader(entry: entry, file: file)
            let here = SettingSource.file(file, line: entry.line)
            if entry.table.count == 3, entry.table[2] == "headers" {  // [hosts."x".headers] as a table of its own
                rule.headers.append((entry.key, try headerValue(reader), entry.line))
                continue
            }
            guard entry.table.count == 2 else {
                throw TOMLError(file: file, line: entry.line, key: nil,
                                message: "unknown table [\(TOMLSubset.dotted(entry.table))]; a host rule holds only a headers table")
            }
            switch entry.key {
            case "split": rule.split = Setting(value: try reader.integer(in: 1...SplitOptions.maximum), source: here)
            case "connections": rule.connections = Setting(value: try reader.integer(in: 1...1000), source: here)
            case "limit-rate": rule.limitRate = Setting(value: try reader.rate(), source: here)
            case "netrc": rule.netrc = Setting(value: try reader.bool(), source: here)
            case "user-agent": rule.headers.append(("User-Agent", try headerValue(reader), entry.line))
            case "referer": rule.headers.append(("Referer", try headerValue(reader), entry.line))
            case "headers": rule.headers += try headerList(reader)
            case "proxy":
                // The engine sets a proxy per session (libcurl handle options come from SessionConfiguration), not
                // per request: ignoring it would send this host's requests direct, so the file is refused.
                throw reader.fail("a per-host proxy is not supported yet (the engine's proxy is per session); use -x on the command line")
            default:
                throw reader.fail("unknown key in [hosts.\"\(pattern)\"]; known: \(keys.joined(separator: ", "))")
            }
        }
        return rule
    }

    private static func valid(_ pattern: String) -> Bool {
        let name = pattern.hasPrefix("*.") ? pattern.dropFirst(2) : Substring(pattern)
        return !name.isEmpty && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "." || $0 == ":" || $0 == "_") }
    }

    private static func headerValue(_ reader: ValueReader) throws(TOMLError) -> String {
        guard case .string(let value) = reader.entry.value else {
            throw reader.fail("expected a string, found \(reader.entry.value.typeName)")
        }
        guard !value.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else { throw reader.fail("a header value cannot hold a line break") }
        return value
    }

    /// `headers = { "X-A" = "1" }` or `headers = ["X-A: 1"]`.
    private static func headerList(_ reader: ValueReader) throws(TOMLError) -> [(name: String, value: String, line: Int)] {
        let line = reader.entry.line
        var result: [(name: String, value: String, line: Int)] = []
        func check(_ name: String, _ value: String) throws(TOMLError) {
            guard !name.isEmpty, name.unicodeScalars.allSatisfy(isTokenCharacter) else { throw reader.fail("not a header name: \(name)") }
            guard !value.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else { throw reader.fail("a header value cannot hold a line break") }
            result.append((name, value, line))
        }
        switch reader.entry.value {
        case .table(let pairs):
            for pair in pairs {
                guard case .string(let value) = pair.value else { throw reader.fail("the header \(pair.key) must be a string") }
                try check(pair.key, value)
            }
        case .array(let items):
            for item in items {
                guard case .string(let text) = item, let colon = text.firstIndex(of: ":") else {
                    throw reader.fail("each header must be a string \"Name: value\"")
                }
                try check(String(text[..<colon]).trimmingBlanks(), String(text[text.index(after: colon)...]).trimmingBlanks())
            }
        default:
            throw reader.fail("expected a table { \"Name\" = \"value\" } or an array of \"Name: value\", found \(reader.entry.value.typeName)")
        }
        return result
    }

    /// RFC 9110's tchar.
    private static func isTokenCharacter(_ c: Unicode.Scalar) -> Bool {
        c.isASCII && (c.properties.isAlphabetic || ("0"..."9").contains(c) || "!#$%&'*+-.^_`|~".unicodeScalars.contains(c))
    }
}
