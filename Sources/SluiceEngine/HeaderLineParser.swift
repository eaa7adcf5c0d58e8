// Parses the header lines libcurl hands over one at a time into a status code and ordered fields.

struct HeaderLineParser: Equatable {
    private(set) var statusCode: Int?
    private(set) var fields = HTTPHeaders()
    /// True once the blank line ending a header block has been seen.
    private(set) var isComplete = false

    /// Feeds one raw header line (with or without its CRLF). A status line starts a new response:
    /// redirects and 1xx replies each bring their own block, and only the last one counts.
    mutating func feed(line raw: String) {
        let line = raw.trimmedLineBreak()
        if line.hasPrefix("HTTP/") {
            self = HeaderLineParser()
            statusCode = Self.status(ofStatusLine: line)
            return
        }
        if line.isEmpty {
            isComplete = true
            return
        }
        if let first = line.first, first == " " || first == "\t", let last = fields.fields.last {
            // obs-fold: a continuation of the previous field's value
            var all = fields.fields
            all[all.count - 1] = (name: last.name, value: last.value + " " + line.trimmedSpaces())
            fields = HTTPHeaders(all)
            return
        }
        if let field = Self.field(of: line) { fields.add(field.name, field.value) }
    }

    static func status(ofStatusLine line: String) -> Int? {
        let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard parts.count >= 2, let code = Int(parts[1]), (100...999).contains(code) else { return nil }
        return code
    }

    static func field(of line: String) -> (name: String, value: String)? {
        guard let colon = line.firstIndex(of: ":") else { return nil }
        let name = line[..<colon].trimmedSpaces()
        guard !name.isEmpty else { return nil }
        let value = line[line.index(after: colon)...].trimmedSpaces()
        return (name: name, value: value)
    }

    /// Fields of a CRLF-separated block (multipart part headers).
    static func fields(ofBlock block: String) -> HTTPHeaders {
        var parser = HeaderLineParser()
        for line in block.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            parser.feed(line: String(line))
        }
        return parser.fields
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs, the only blanks header syntax allows.
    func trimmedSpaces() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return String(s)
    }

    /// Without a trailing line break ("\r\n" is one Character in Swift, so it is named too).
    func trimmedLineBreak() -> String {
        var s = Substring(self)
        while let l = s.last, l == "\r\n" || l == "\n" || l == "\r" { s = s.dropLast() }
        return String(s)
    }
}
