// What a row is called: the server's file name, else the URL's last path segment, else its host. Tasks on one
// server share a scheme and host, so a URL cut to fit a column says nothing about which task is which.

public enum TaskName {
    /// The Content-Disposition file name, else the last path segment of `url` (percent-decoded), else the host,
    /// else the URL itself; cleaned for a terminal (no control characters, separators or bidi overrides).
    public static func of(url: String, dispositionName: String? = nil) -> String {
        if let name = dispositionName.flatMap(SafeFileName.clean) { return name }
        let parts = URLParts(url)
        if let segment = parts.lastSegment.flatMap({ SafeFileName.clean(percentDecoded($0)) }) { return segment }
        if let host = parts.host, !host.isEmpty { return Sanitized.text(host) }
        return Sanitized.text(url)
    }

    /// `name` with the URL's query after it, for rows whose names are alike (`download?id=7`, `drip?…name=b.bin`);
    /// `name` alone when the URL has no query.
    public static func qualified(_ name: String, url: String) -> String {
        guard let query = URLParts(url).query, !query.isEmpty else { return name }
        return name + "?" + Sanitized.text(percentDecoded(query))
    }

    /// "host" or "host:port", or nil for URLs without one (file:, data:).
    public static func host(of url: String) -> String? {
        URLParts(url).host.flatMap { $0.isEmpty ? nil : Sanitized.text($0) }
    }

    /// `%41` becomes `A`; bytes that are not UTF-8 become U+FFFD rather than failing.
    static func percentDecoded(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var it = text.utf8.makeIterator()
        while let b = it.next() {
            guard b == UInt8(ascii: "%") else {
                bytes.append(b)
                continue
            }
            guard let h = it.next() else {
                bytes.append(b)
                break
            }
            guard let l = it.next() else {
                bytes += [b, h]
                break
            }
            if let hi = hexValue(h), let lo = hexValue(l) { bytes.append(hi << 4 | lo) } else { bytes += [b, h, l] }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// The authority and the path of a URL's text, split by hand: rows are named thousands of times a second when
/// many tasks start, and the text is already a parsed URL's `absoluteString`.
struct URLParts {
    var host: String?
    var lastSegment: Substring?
    var query: Substring?

    init(_ url: String) {
        // A parsed URL's text is ASCII (percent-encoded): its bytes are its characters, and walking bytes costs
        // a fraction of walking Characters, which was most of naming a row. Other text keeps the Character walk.
        self = url.utf8.allSatisfy { $0 < 0x80 } ? Self(ascii: url) : Self(characters: url)
    }

    /// The same split as `init(characters:)`, over the bytes of an all-ASCII `url`.
    init(ascii url: String) {
        let bytes = url.utf8
        let slash = UInt8(ascii: "/"), question = UInt8(ascii: "?"), hash = UInt8(ascii: "#")
        var start = bytes.startIndex
        if let colon = bytes.firstIndex(of: UInt8(ascii: ":")), bytes[..<colon].allSatisfy(Self.isSchemeByte) {
            start = bytes.index(after: colon)
        }
        guard bytes[start...].starts(with: "//".utf8) else { return }  // no hierarchy, no path to name
        let authorityStart = bytes.index(start, offsetBy: 2)
        let authorityEnd = bytes[authorityStart...].firstIndex { $0 == slash || $0 == question || $0 == hash } ?? bytes.endIndex
        let hostStart = bytes[authorityStart..<authorityEnd].lastIndex(of: UInt8(ascii: "@")).map(bytes.index(after:)) ?? authorityStart
        host = String(url[hostStart..<authorityEnd])  // no credentials
        var pathEnd = bytes.endIndex
        if let end = bytes[authorityEnd...].firstIndex(where: { $0 == question || $0 == hash }) {
            if bytes[end] == question {
                let afterMark = bytes.index(after: end)
                query = Substring(url)[afterMark..<(bytes[afterMark...].firstIndex(of: hash) ?? bytes.endIndex)]
            }
            pathEnd = end
        }
        // The last segment that is not empty, as split(separator: "/").last finds it.
        var segmentEnd = pathEnd
        while segmentEnd > authorityEnd, bytes[bytes.index(before: segmentEnd)] == slash { segmentEnd = bytes.index(before: segmentEnd) }
        guard segmentEnd > authorityEnd else { return }
        var segmentStart = segmentEnd
        while segmentStart > authorityEnd, bytes[bytes.index(before: segmentStart)] != slash { segmentStart = bytes.index(before: segmentStart) }
        lastSegment = Substring(url)[segmentStart..<segmentEnd]
    }

    /// What `Character.isLetter || isNumber || "+-.".contains` accepts, for an ASCII byte.
    private static func isSchemeByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."): true
        default: false
        }
    }

    init(characters url: String) {
        var rest = Substring(url)
        if let colon = rest.firstIndex(of: ":"), rest[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }) {
            rest = rest[rest.index(after: colon)...]
        }
        guard rest.hasPrefix("//") else { return }  // data: and other URLs without a hierarchy have no path to name
        rest = rest.dropFirst(2)
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }  // no credentials
        host = String(authority)
        var path = rest[authorityEnd...]
        if let end = path.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            if path[end] == "?" {
                let afterMark = path[path.index(after: end)...]
                query = afterMark[..<(afterMark.firstIndex(of: "#") ?? afterMark.endIndex)]
            }
            path = path[..<end]
        }
        lastSegment = path.split(separator: "/").last
    }
}
