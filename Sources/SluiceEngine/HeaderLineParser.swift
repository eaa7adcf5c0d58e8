// Parses the header lines libcurl hands over one at a time into a status code and ordered fields.
#if canImport(Glibc)
import Glibc
#endif

struct HeaderLineParser: Equatable {
    private(set) var statusCode: Int?
    /// The status line's words after the code ("Not Found"); nil when there are none (HTTP/2 sends none).
    private(set) var reasonPhrase: String?
    private(set) var fields = HTTPHeaders()
    /// True once the blank line ending a header block has been seen.
    private(set) var isComplete = false

    /// Feeds one raw header line (with or without its CRLF). A status line starts a new response:
    /// redirects and 1xx replies each bring their own block, and only the last one counts.
    mutating func feed(line raw: String) {
        var raw = raw
        raw.withUTF8 { feed(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// The same on the bytes libcurl hands over: parsed in place, with a String made only for a name and a
    /// value (String-level trimming and splitting cost 14 % of the CPU of 2,000 small transfers).
    mutating func feed(bytes raw: UnsafeRawBufferPointer) {
        var end = raw.count
        while end > 0, raw[end - 1] == 10 || raw[end - 1] == 13 { end -= 1 }
        let line = UnsafeRawBufferPointer(rebasing: raw[0..<end])
        if line.starts(with: Self.httpPrefix) {
            self = HeaderLineParser()
            statusCode = Self.status(ofStatusLine: line)
            if statusCode != nil { reasonPhrase = Self.reason(ofStatusLine: line) }
            return
        }
        if line.isEmpty {
            isComplete = true
            return
        }
        if line[0] == 32 || line[0] == 9, let last = fields.fields.last {
            // obs-fold: a continuation of the previous field's value; a blank side adds no space, values stay trimmed
            let more = Self.text(line, 0, line.count)
            let value = last.value.isEmpty || more.isEmpty ? last.value + more : last.value + " " + more
            var all = fields.fields
            all[all.count - 1] = (name: last.name, value: value)
            fields = HTTPHeaders(all)
            return
        }
        guard let colon = line.firstIndex(of: 58) else { return }  // ":"
        let name = Self.commonName(UnsafeRawBufferPointer(rebasing: line[0..<colon])) ?? Self.text(line, 0, colon)
        guard !name.isEmpty else { return }
        // Room for a typical head at once: grown one field at a time, the array was reallocated four times a
        // response (1,800 instructions a request in the HTTP/2 small-file benchmark).
        if fields.isEmpty { fields.reserveCapacity(16) }
        fields.add(name, Self.text(line, colon + 1, line.count))
    }

    private static let httpPrefix = Array("HTTP/".utf8)

    /// The names most responses carry, as literals: a name made from its bytes was validated and copied, about
    /// 200 instructions, seven times a response. Byte for byte, so the String is the one the bytes would make;
    /// HTTP/2 sends names in lower case, HTTP/1.1 servers mostly as written here.
    private static func commonName(_ bytes: UnsafeRawBufferPointer) -> String? {
        guard let base = bytes.baseAddress else { return nil }
        func matches(_ literal: StaticString) -> Bool {
            literal.utf8CodeUnitCount == bytes.count && memcmp(literal.utf8Start, base, bytes.count) == 0
        }
        switch bytes.count {
        case 4:
            if matches("date") { return "date" }
            if matches("etag") { return "etag" }
            if matches("vary") { return "vary" }
            if matches("Date") { return "Date" }
            if matches("ETag") { return "ETag" }
            if matches("Vary") { return "Vary" }
        case 6:
            if matches("server") { return "server" }
            if matches("Server") { return "Server" }
        case 7:
            if matches("expires") { return "expires" }
            if matches("Expires") { return "Expires" }
        case 8:
            if matches("location") { return "location" }
            if matches("Location") { return "Location" }
        case 10:
            if matches("set-cookie") { return "set-cookie" }
            if matches("connection") { return "connection" }
            if matches("keep-alive") { return "keep-alive" }
            if matches("Set-Cookie") { return "Set-Cookie" }
            if matches("Connection") { return "Connection" }
            if matches("Keep-Alive") { return "Keep-Alive" }
        case 12:
            if matches("content-type") { return "content-type" }
            if matches("Content-Type") { return "Content-Type" }
        case 13:
            if matches("last-modified") { return "last-modified" }
            if matches("accept-ranges") { return "accept-ranges" }
            if matches("cache-control") { return "cache-control" }
            if matches("Last-Modified") { return "Last-Modified" }
            if matches("Accept-Ranges") { return "Accept-Ranges" }
            if matches("Cache-Control") { return "Cache-Control" }
        case 14:
            if matches("content-length") { return "content-length" }
            if matches("Content-Length") { return "Content-Length" }
        case 16:
            if matches("content-encoding") { return "content-encoding" }
            if matches("Content-Encoding") { return "Content-Encoding" }
        case 17:
            if matches("transfer-encoding") { return "transfer-encoding" }
            if matches("Transfer-Encoding") { return "Transfer-Encoding" }
        default:
            break
        }
        return nil
    }

    /// The bytes in `lower..<upper` without surrounding spaces and tabs, as a String.
    private static func text(_ line: UnsafeRawBufferPointer, _ lower: Int, _ upper: Int) -> String {
        var from = lower, to = upper
        while from < to, line[from] == 32 || line[from] == 9 { from += 1 }
        while to > from, line[to - 1] == 32 || line[to - 1] == 9 { to -= 1 }
        return String(decoding: UnsafeRawBufferPointer(rebasing: line[from..<to]), as: UTF8.self)
    }

    /// The three digits after the protocol: "HTTP/1.1 206 Partial Content" gives 206.
    static func status(ofStatusLine line: UnsafeRawBufferPointer) -> Int? {
        guard let space = line.firstIndex(of: 32) else { return nil }
        var i = space
        while i < line.count, line[i] == 32 { i += 1 }
        var code = 0, digits = 0
        while i < line.count, line[i] >= 48, line[i] <= 57, digits < 4 {
            code = code * 10 + Int(line[i] - 48)
            digits += 1
            i += 1
        }
        guard digits == 3, i == line.count || line[i] == 32 else { return nil }
        return code >= 100 ? code : nil
    }

    /// What follows the code of a status line `status(ofStatusLine:)` accepted, trimmed; nil when blank. Short
    /// phrases ("OK", "Not Found") make small strings, stored inline: no allocation a response.
    static func reason(ofStatusLine line: UnsafeRawBufferPointer) -> String? {
        guard let space = line.firstIndex(of: 32) else { return nil }
        var i = space
        while i < line.count, line[i] == 32 { i += 1 }
        let afterCode = min(line.count, i + 3)
        let phrase = text(line, afterCode, line.count)
        return phrase.isEmpty ? nil : phrase
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
}
