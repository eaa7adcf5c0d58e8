// What a row is called: the server's file name, else the URL's last path segment, else its host. Tasks on one
// server share a scheme and host, so a URL cut to fit a column says nothing about which task is which.

public enum TaskName {
    /// The Content-Disposition file name, else the last path segment of `url` (percent-decoded), else the host,
    /// else the URL itself; cleaned for a terminal (no control characters, separators or bidi overrides).
    public static func of(url: String, dispositionName: String? = nil) -> String {
        if let name = dispositionName.flatMap(SafeFileName.clean) { return name }
        return name(of: URLParts(url), url: url)
    }

    /// `of(url:)` and `host(of:)` together, from one split of the URL (a new row needs both).
    public static func nameAndHost(of url: String) -> (name: String, host: String?) {
        let parts = URLParts(url)
        return (name(of: parts, url: url), host(of: parts))
    }

    /// The file name the URL's path gives (its last segment decoded and cleaned); nil when it names none
    /// (`http://host/`): a download is then saved under `SafeFileName.sanitize`'s default, never the host's name.
    public static func fileName(of url: String) -> String? {
        URLParts(url).lastSegment.flatMap { SafeFileName.clean(percentDecoded($0)) }
    }

    private static func name(of parts: URLParts, url: String) -> String {
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
    public static func host(of url: String) -> String? { host(of: URLParts(url)) }

    private static func host(of parts: URLParts) -> String? { parts.host.flatMap { $0.isEmpty ? nil : Sanitized.text($0) } }

    /// `%41` becomes `A`; bytes that are not UTF-8 become U+FFFD rather than failing.
    static func percentDecoded(_ text: Substring) -> String {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return String(text) }  // most names: nothing to decode
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
        // Walked as a buffer of bytes with integer offsets when the string has one (String.Index arithmetic was
        // most of what was left), else by the string's own indices.
        if let split = url.utf8.withContiguousStorageIfAvailable(Offsets.init), let split {
            self = split.parts(of: url)
        } else {
            self = url.utf8.allSatisfy { $0 < 0x80 } ? Self(ascii: url) : Self(characters: url)
        }
    }

    /// Where an all-ASCII URL's host, query and last segment are, as byte offsets.
    private struct Offsets {
        var host: Range<Int>?
        var query: Range<Int>?
        var lastSegment: Range<Int>?

        /// Nil when the text is not all ASCII.
        init?(_ bytes: UnsafeBufferPointer<UInt8>) {
            let slash = UInt8(ascii: "/"), question = UInt8(ascii: "?"), hash = UInt8(ascii: "#")
            var colon: Int?
            for i in bytes.indices {
                let b = bytes[i]
                if b >= 0x80 { return nil }
                if colon == nil, b == UInt8(ascii: ":") { colon = i }
            }
            var start = 0
            if let colon, bytes[..<colon].allSatisfy(URLParts.isSchemeByte) { start = colon + 1 }
            guard bytes.count - start >= 2, bytes[start] == slash, bytes[start + 1] == slash else { return }
            let authorityStart = start + 2
            var authorityEnd = authorityStart
            while authorityEnd < bytes.count, bytes[authorityEnd] != slash, bytes[authorityEnd] != question,
                  bytes[authorityEnd] != hash { authorityEnd += 1 }
            var hostStart = authorityStart
            for i in authorityStart..<authorityEnd where bytes[i] == UInt8(ascii: "@") { hostStart = i + 1 }  // no credentials
            host = hostStart..<authorityEnd
            var pathEnd = authorityEnd
            while pathEnd < bytes.count, bytes[pathEnd] != question, bytes[pathEnd] != hash { pathEnd += 1 }
            if pathEnd < bytes.count, bytes[pathEnd] == question {
                var queryEnd = pathEnd + 1
                while queryEnd < bytes.count, bytes[queryEnd] != hash { queryEnd += 1 }
                query = pathEnd + 1..<queryEnd
            }
            // The last segment that is not empty, as split(separator: "/").last finds it.
            var segmentEnd = pathEnd
            while segmentEnd > authorityEnd, bytes[segmentEnd - 1] == slash { segmentEnd -= 1 }
            guard segmentEnd > authorityEnd else { return }
            var segmentStart = segmentEnd
            while segmentStart > authorityEnd, bytes[segmentStart - 1] != slash { segmentStart -= 1 }
            lastSegment = segmentStart..<segmentEnd
        }

        func parts(of url: String) -> URLParts {
            let utf8 = url.utf8
            func text(_ range: Range<Int>) -> Substring {
                Substring(url)[utf8.index(utf8.startIndex, offsetBy: range.lowerBound)..<utf8.index(utf8.startIndex, offsetBy: range.upperBound)]
            }
            var parts = URLParts()
            parts.host = host.map { String(text($0)) }
            parts.query = query.map(text)
            parts.lastSegment = lastSegment.map(text)
            return parts
        }
    }

    private init() {}

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
    fileprivate static func isSchemeByte(_ b: UInt8) -> Bool {
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
