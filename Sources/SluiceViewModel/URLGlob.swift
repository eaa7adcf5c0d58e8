// curl's URL globbing: `[1-50]`, `[001-050]`, `[a-z]`, `[1-10:2]`, `{one,two}`, expanded in curl's order, and `#N`.

/// One URL argument read as curl reads it (its glob.c): sets in braces, numeric and letter ranges in brackets with
/// an optional step, a backslash before a brace or bracket for the character itself, and a bracket around an
/// IPv6 address left alone. Expansion goes as curl's: the last pattern changes fastest. Pure.
public struct URLGlob: Sendable, Equatable {
    public struct Failure: Error, Equatable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    /// One expanded URL and the text each pattern gave it, for `#1`, `#2`... in an output name.
    public struct Expansion: Sendable, Equatable {
        public let url: String
        public let values: [String]
    }

    enum Part: Sendable, Equatable {
        case literal(String)
        case choices([String])
    }

    let parts: [Part]

    /// More URLs than this from one argument is refused rather than held in memory.
    public static let limit = 1_000_000

    public init(_ pattern: String) throws(Failure) {
        var parser = Parser(Array(pattern.utf8))
        parts = try parser.parts()
        let total = count
        if total > Self.limit {
            throw Failure(message: "\(Sanitized.text(pattern)) expands to more than \(Self.limit) URLs")
        }
    }

    /// How many URLs the pattern gives (saturating, so a huge product is still more than the limit).
    public var count: Int {
        parts.reduce(1) { total, part in
            guard case .choices(let values) = part else { return total }
            let (product, overflow) = total.multipliedReportingOverflow(by: values.count)
            return overflow ? Int.max : product
        }
    }

    /// Whether the pattern holds no pattern at all (a plain URL, perhaps with escapes or an IPv6 address).
    public var isPlain: Bool { !parts.contains { if case .choices = $0 { true } else { false } } }

    /// Every URL, in curl's order.
    public func expansions() -> [Expansion] {
        let patterns = parts.compactMap { part -> [String]? in
            if case .choices(let values) = part { values } else { nil }
        }
        var result: [Expansion] = []
        result.reserveCapacity(count)
        var index = [Int](repeating: 0, count: patterns.count)
        while true {
            var url = ""
            var values: [String] = []
            var k = 0
            for part in parts {
                switch part {
                case .literal(let text): url += text
                case .choices(let choices):
                    url += choices[index[k]]
                    values.append(choices[index[k]])
                    k += 1
                }
            }
            result.append(Expansion(url: url, values: values))
            var position = patterns.count - 1  // an odometer whose last wheel turns fastest
            while position >= 0 {
                index[position] += 1
                if index[position] < patterns[position].count { break }
                index[position] = 0
                position -= 1
            }
            if position < 0 { return result }
        }
    }

    /// An output name with `#1`, `#2`... replaced by what those patterns gave; a `#` with no digits, or a number
    /// that is no pattern's, stays as it is, as in curl.
    public static func fill(_ template: String, with values: [String]) -> String {
        let bytes = Array(template.utf8)
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            guard bytes[i] == UInt8(ascii: "#") else {
                out.append(bytes[i])
                i += 1
                continue
            }
            var end = i + 1
            while end < bytes.count, isDigit(bytes[end]) { end += 1 }
            if let n = Int(String(decoding: bytes[(i + 1)..<end], as: UTF8.self)), n >= 1, n <= values.count {
                out += Array(values[n - 1].utf8)
            } else {
                out += bytes[i..<end]
            }
            i = end
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether a template names a pattern (`#` and a digit), so that each URL gets a file of its own.
    public static func isTemplate(_ template: String) -> Bool {
        let bytes = Array(template.utf8)
        return bytes.indices.dropLast().contains { bytes[$0] == UInt8(ascii: "#") && isDigit(bytes[$0 + 1]) }
    }

    private struct Parser {
        let bytes: [UInt8]
        var at = 0
        var result: [Part] = []
        var literal: [UInt8] = []

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        mutating func parts() throws(Failure) -> [Part] {
            while at < bytes.count {
                let byte = bytes[at]
                switch byte {
                case UInt8(ascii: "\\") where at + 1 < bytes.count && "{}[]".utf8.contains(bytes[at + 1]):
                    literal.append(bytes[at + 1])
                    at += 2
                case UInt8(ascii: "{"):
                    flushLiteral()
                    result.append(.choices(try set()))
                case UInt8(ascii: "["):
                    if let end = ipv6End() {
                        literal += bytes[at...end]
                        at = end + 1
                    } else {
                        flushLiteral()
                        result.append(.choices(try range()))
                    }
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    throw failure("unmatched close brace/bracket", at)
                default:
                    literal.append(byte)
                    at += 1
                }
            }
            flushLiteral()
            return result
        }

        mutating func flushLiteral() {
            if !literal.isEmpty { result.append(.literal(String(decoding: literal, as: UTF8.self))) }
            literal = []
        }

        func failure(_ what: String, _ position: Int) -> Failure {
            let url = Sanitized.text(String(decoding: bytes, as: UTF8.self))
            return Failure(message: "\(what) in URL position \(position + 1): \(url)")
        }

        /// `{a,b,c}`: `at` is on the brace. A backslash takes the next character as it is.
        mutating func set() throws(Failure) -> [String] {
            let start = at
            at += 1
            var values: [String] = []
            var current: [UInt8] = []
            while at < bytes.count {
                let byte = bytes[at]
                switch byte {
                case UInt8(ascii: "}"):
                    at += 1
                    values.append(String(decoding: current, as: UTF8.self))
                    if values == [""] { throw failure("empty string within braces", at - 1) }
                    return values
                case UInt8(ascii: ","):
                    values.append(String(decoding: current, as: UTF8.self))
                    current = []
                    at += 1
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    throw failure("nested brace", at)
                case UInt8(ascii: "]"):
                    throw failure("unexpected close bracket", at)
                case UInt8(ascii: "\\") where at + 1 < bytes.count:
                    current.append(bytes[at + 1])
                    at += 2
                default:
                    current.append(byte)
                    at += 1
                }
            }
            throw failure("unmatched brace", start)
        }

        /// The closing bracket of `[` at `at` when what it holds is an IPv6 address (hex digits, colons, dots, a
        /// zone after %25) or nothing, which curl leaves as it is.
        func ipv6End() -> Int? {
            var i = at + 1
            var colons = 0
            while i < bytes.count, bytes[i] != UInt8(ascii: "]") {
                let byte = bytes[i]
                if byte == UInt8(ascii: ":") { colons += 1 }
                let allowed = isHexDigit(byte) || byte == UInt8(ascii: ":") || byte == UInt8(ascii: ".")
                    || byte == UInt8(ascii: "%") || (colons > 0 && isZoneByte(byte))
                guard allowed else { return nil }
                i += 1
            }
            guard i < bytes.count, colons >= 2 || i == at + 1 else { return nil }
            return i
        }

        /// `[1-10]`, `[001-050]`, `[a-z]`, `[1-10:2]`: `at` is on the bracket.
        mutating func range() throws(Failure) -> [String] {
            let start = at
            at += 1
            guard at < bytes.count else { throw failure("bad range specification", start) }
            let first = bytes[at]
            if isLetter(first) {
                guard at + 3 < bytes.count, bytes[at + 1] == UInt8(ascii: "-"), isLetter(bytes[at + 2]) else {
                    throw failure("bad range", min(at + 2, bytes.count))
                }
                let low = first, high = bytes[at + 2]
                at += 3
                let step = try stepAndClose(start)
                let sameCase = (isLower(low) && isLower(high)) || (!isLower(low) && !isLower(high))
                let span = Int(high) - Int(low)
                guard sameCase, span >= 0, step >= 1, span == 0 || span >= step else { throw failure("bad range", at - 1) }
                return stride(from: Int(low), through: Int(high), by: step).map { String(UnicodeScalar(UInt8($0))) }
            }
            guard isDigit(first) else { throw failure("bad range specification", start) }
            let lowText = digits()
            guard at < bytes.count, bytes[at] == UInt8(ascii: "-") else { throw failure("bad range", at) }
            at += 1
            let highText = digits()
            guard let low = Int(lowText), let high = Int(highText) else { throw failure("bad range", at) }
            let step = try stepAndClose(start)
            guard high >= low, step >= 1, low == high || high - low >= step else { throw failure("bad range", at - 1) }
            if (high - low) / step + 1 > URLGlob.limit { throw failure("range too large", start) }
            // A leading zero pads every number to the first one's width, as curl.
            let width = lowText.hasPrefix("0") ? lowText.count : 0
            return stride(from: low, through: high, by: step).map { String($0).leftPadded(to: width) }
        }

        mutating func digits() -> String {
            let begin = at
            while at < bytes.count, isDigit(bytes[at]) { at += 1 }
            return String(decoding: bytes[begin..<at], as: UTF8.self)
        }

        /// An optional `:STEP`, then the closing bracket.
        mutating func stepAndClose(_ start: Int) throws(Failure) -> Int {
            var step = 1
            if at < bytes.count, bytes[at] == UInt8(ascii: ":") {
                at += 1
                guard let value = Int(digits()) else { throw failure("bad range", at) }
                step = value
            }
            guard at < bytes.count, bytes[at] == UInt8(ascii: "]") else { throw failure("bad range", at) }
            at += 1
            return step
        }
    }
}

private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
private func isLower(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") }
private func isLetter(_ byte: UInt8) -> Bool { isLower(byte) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) }
private func isHexDigit(_ byte: UInt8) -> Bool {
    isDigit(byte) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "F"))
}
private func isZoneByte(_ byte: UInt8) -> Bool { isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") }
