// The one small TOML subset that theme files and the config file share: tables, keys and their values, with lines.
//
// What it reads: `# comments`, `[table]` and `[table."quoted.key"]` headers, `key = value` where a key is bare
// (A-Z a-z 0-9 - _) or quoted, and values that are a "basic string" (escapes \" \\ \n \t \r \uXXXX), a 'literal
// string', an integer, a float, true/false, a one-line array of those, or a one-line inline table
// `{ "Name" = "value" }`. Not read (a clear error, never a guess): multi-line strings and arrays, dotted keys on
// the left of `=`, dates, `[[arrays of tables]]`. Every error names the line and, where there is one, the key.

public struct TOMLError: Error, Equatable, CustomStringConvertible, Sendable {
    public let file: String
    public let line: Int
    /// The key the error is about, when there is one (a table header's error has none).
    public let key: String?
    public let message: String
    public init(file: String, line: Int, key: String?, message: String) {
        self.file = file
        self.line = line
        self.key = key
        self.message = message
    }
    public var description: String { "\(file):\(line): " + (key.map { "\($0): " } ?? "") + message }
}

public indirect enum TOMLValue: Equatable, Sendable {
    case string(String)
    case integer(Int)
    case float(Double)
    case bool(Bool)
    case array([TOMLValue])
    case table([(key: String, value: TOMLValue)])

    public static func == (a: TOMLValue, b: TOMLValue) -> Bool {
        switch (a, b) {
        case (.string(let x), .string(let y)): x == y
        case (.integer(let x), .integer(let y)): x == y
        case (.float(let x), .float(let y)): x == y
        case (.bool(let x), .bool(let y)): x == y
        case (.array(let x), .array(let y)): x == y
        case (.table(let x), .table(let y)): x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: false
        }
    }

    /// The type's name as a config error says it ("expected an integer, found a string").
    public var typeName: String {
        switch self {
        case .string: "a string"
        case .integer: "an integer"
        case .float: "a number"
        case .bool: "true or false"
        case .array: "an array"
        case .table: "a table"
        }
    }
}

/// One `key = value` of a document, in the table its header named, with its line.
public struct TOMLEntry: Equatable, Sendable {
    public let table: [String]
    public let key: String
    public let value: TOMLValue
    public let line: Int
}

/// One line as the shared lexer sees it; themes read these to keep their own messages.
public enum TOMLLine: Equatable, Sendable {
    case blank
    case header([String])
    /// A key and the value's text as written (after `=`, blanks trimmed).
    case pair(key: String, valueText: String)
    /// A line that is neither; the text as written.
    case other(String)
}

public enum TOMLSubset {
    /// The line (from 1) where bytes that are not UTF-8 first appear; nil when all of them are UTF-8 text. A
    /// newline byte is never part of a longer UTF-8 sequence, so each line can be checked alone.
    public static func firstLineNotUTF8(_ bytes: [UInt8]) -> Int? {
        for (index, line) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated()
        where String(validating: line, as: UTF8.self) == nil {
            return index + 1
        }
        return nil
    }

    /// Lines of a text: "\r\n" is one Character to Swift, so CRLF files need it named as a line end of its own.
    public static func lines(_ text: String) -> [Substring] {
        text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
    }

    /// One line, its comment dropped and blanks trimmed, told apart as a header, a pair or something else.
    /// A header that does not parse is `.other`; `document` turns it into an error with the line.
    public static func classify(_ raw: Substring) -> TOMLLine {
        let line = stripComment(raw).trimmingBlanks()
        if line.isEmpty { return .blank }
        if line.hasPrefix("[") {
            if let path = try? headerPath(line) { return .header(path) }
            return .other(line)
        }
        var cursor = Cursor(Substring(line))
        guard let key = try? cursor.key(), !key.isEmpty else { return .other(line) }
        cursor.skipBlanks()
        guard cursor.take("=") else { return .other(line) }
        return .pair(key: key, valueText: String(cursor.rest).trimmingBlanks())
    }

    /// A whole document: every entry with its table and line; a duplicate key or table is an error.
    public static func document(_ text: String, file: String) throws(TOMLError) -> [TOMLEntry] {
        var entries: [TOMLEntry] = []
        var table: [String] = []
        var seenTables: [[String]: Int] = [:]
        var seenKeys: [[String]: Int] = [:]
        for (index, raw) in lines(text).enumerated() {
            let number = index + 1
            let line = stripComment(raw).trimmingBlanks()
            if line.isEmpty { continue }
            if line.hasPrefix("[") {
                do throws(ParseFailure) {
                    table = try headerPath(line)
                } catch {
                    throw TOMLError(file: file, line: number, key: nil, message: "bad table header \(line): \(error.message)")
                }
                if let first = seenTables[table] {
                    throw TOMLError(file: file, line: number, key: nil,
                                    message: "table [\(dotted(table))] is defined twice (first on line \(first))")
                }
                seenTables[table] = number
                continue
            }
            var cursor = Cursor(Substring(line))
            let key: String
            do throws(ParseFailure) {
                key = try cursor.key()
                cursor.skipBlanks()
                if cursor.peek == "." { throw ParseFailure(message: "dotted keys are not supported; use a [table] header") }
                guard !key.isEmpty, cursor.take("=") else { throw ParseFailure(message: "expected `key = value`, found \"\(line)\"") }
            } catch {
                throw TOMLError(file: file, line: number, key: nil, message: error.message)
            }
            let value: TOMLValue
            do throws(ParseFailure) {
                cursor.skipBlanks()
                value = try cursor.value()
                cursor.skipBlanks()
                guard cursor.rest.isEmpty else { throw ParseFailure(message: "unexpected text after the value: \"\(cursor.rest)\"") }
            } catch {
                throw TOMLError(file: file, line: number, key: key, message: error.message)
            }
            let full = table + [key]
            if let first = seenKeys[full] {
                throw TOMLError(file: file, line: number, key: key, message: "set twice (first on line \(first))")
            }
            if seenTables[full] != nil {
                throw TOMLError(file: file, line: number, key: key, message: "already defined as a table")
            }
            seenKeys[full] = number
            entries.append(TOMLEntry(table: table, key: key, value: value, line: number))
        }
        return entries
    }

    /// `a.b` with quotes where a key needs them, as a header would be written.
    public static func dotted(_ path: [String]) -> String {
        path.map { $0.allSatisfy(isBare) && !$0.isEmpty ? $0 : "\"\($0)\"" }.joined(separator: ".")
    }

    struct ParseFailure: Error { let message: String }

    static func headerPath(_ line: String) throws(ParseFailure) -> [String] {
        if line.hasPrefix("[[") { throw ParseFailure(message: "arrays of tables are not supported") }
        guard line.hasSuffix("]") else { throw ParseFailure(message: "no closing ]") }
        var cursor = Cursor(Substring(line).dropFirst().dropLast())
        var path: [String] = []
        while true {
            cursor.skipBlanks()
            let part = try cursor.key()
            guard !part.isEmpty || cursor.lastKeyWasQuoted else { throw ParseFailure(message: "an empty name") }
            path.append(part)
            cursor.skipBlanks()
            if cursor.rest.isEmpty { return path }
            guard cursor.take(".") else { throw ParseFailure(message: "unexpected \"\(cursor.rest)\"") }
        }
    }

    static func isBare(_ c: Character) -> Bool {
        c.isASCII && (c.isLetter || c.isNumber || c == "-" || c == "_")
    }

    /// Drops a `#` comment that is not inside quotes.
    public static func stripComment(_ line: Substring) -> Substring {
        var quote: Character?
        var escaped = false
        for i in line.indices {
            let c = line[i]
            if let q = quote {
                if escaped { escaped = false } else if c == "\\" && q == "\"" { escaped = true } else if c == q { quote = nil }
            } else if c == "\"" || c == "'" {
                quote = c
            } else if c == "#" {
                return line[..<i]
            }
        }
        return line
    }

    struct Cursor {
        var rest: Substring
        var lastKeyWasQuoted = false
        init(_ text: Substring) { rest = text }

        var peek: Character? { rest.first }
        mutating func skipBlanks() { while let c = rest.first, c == " " || c == "\t" { rest = rest.dropFirst() } }
        mutating func take(_ c: Character) -> Bool {
            guard rest.first == c else { return false }
            rest = rest.dropFirst()
            return true
        }

        mutating func key() throws(ParseFailure) -> String {
            skipBlanks()
            lastKeyWasQuoted = rest.first == "\"" || rest.first == "'"
            if rest.first == "\"" { return try basicString() }
            if rest.first == "'" { return try literalString() }
            let bare = rest.prefix(while: TOMLSubset.isBare)
            rest = rest.dropFirst(bare.count)
            return String(bare)
        }

        mutating func value() throws(ParseFailure) -> TOMLValue {
            guard let first = rest.first else { throw ParseFailure(message: "no value after =") }
            switch first {
            case "\"":
                if rest.hasPrefix("\"\"\"") { throw ParseFailure(message: "multi-line strings are not supported") }
                return .string(try basicString())
            case "'":
                if rest.hasPrefix("'''") { throw ParseFailure(message: "multi-line strings are not supported") }
                return .string(try literalString())
            case "[": return try array()
            case "{": return try inlineTable()
            default: return try scalar()
            }
        }

        mutating func array() throws(ParseFailure) -> TOMLValue {
            rest = rest.dropFirst()
            var items: [TOMLValue] = []
            while true {
                skipBlanks()
                if take("]") { return .array(items) }
                if rest.isEmpty { throw ParseFailure(message: "unterminated array (arrays must close on their line)") }
                items.append(try value())
                skipBlanks()
                if take(",") { continue }
                skipBlanks()
                guard take("]") else {
                    throw ParseFailure(message: rest.isEmpty ? "unterminated array (arrays must close on their line)" : "expected , or ] in the array")
                }
                return .array(items)
            }
        }

        mutating func inlineTable() throws(ParseFailure) -> TOMLValue {
            rest = rest.dropFirst()
            var pairs: [(key: String, value: TOMLValue)] = []
            while true {
                skipBlanks()
                if take("}") { return .table(pairs) }
                if rest.isEmpty { throw ParseFailure(message: "unterminated inline table (it must close on its line)") }
                let name = try key()
                guard !name.isEmpty || lastKeyWasQuoted else { throw ParseFailure(message: "expected a key in the inline table") }
                skipBlanks()
                guard take("=") else { throw ParseFailure(message: "expected = after \(name) in the inline table") }
                skipBlanks()
                let item = try value()
                if pairs.contains(where: { $0.key == name }) { throw ParseFailure(message: "\(name) is set twice in the inline table") }
                pairs.append((name, item))
                skipBlanks()
                if take(",") { continue }
                guard take("}") else {
                    throw ParseFailure(message: rest.isEmpty ? "unterminated inline table (it must close on its line)" : "expected , or } in the inline table")
                }
                return .table(pairs)
            }
        }

        mutating func scalar() throws(ParseFailure) -> TOMLValue {
            let word = rest.prefix(while: { $0 != "," && $0 != "]" && $0 != "}" && $0 != " " && $0 != "\t" })
            rest = rest.dropFirst(word.count)
            if word == "true" { return .bool(true) }
            if word == "false" { return .bool(false) }
            let digits = word.filter { $0 != "_" }
            if let n = Int(digits) { return .integer(n) }
            if digits.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }), let x = Double(digits), x.isFinite { return .float(x) }
            throw ParseFailure(message: word.isEmpty ? "no value after =" : "not a value: \(word) (a string needs quotes)")
        }

        mutating func literalString() throws(ParseFailure) -> String {
            rest = rest.dropFirst()
            guard let end = rest.firstIndex(of: "'") else { throw ParseFailure(message: "unterminated string") }
            let text = String(rest[..<end])
            rest = rest[rest.index(after: end)...]
            return text
        }

        mutating func basicString() throws(ParseFailure) -> String {
            rest = rest.dropFirst()
            var text = ""
            while let c = rest.first {
                rest = rest.dropFirst()
                if c == "\"" { return text }
                guard c == "\\" else { text.append(c); continue }
                guard let e = rest.first else { break }
                rest = rest.dropFirst()
                switch e {
                case "\"": text.append("\"")
                case "\\": text.append("\\")
                case "n": text.append("\n")
                case "t": text.append("\t")
                case "r": text.append("\r")
                case "u", "U":
                    let width = e == "u" ? 4 : 8
                    let hex = rest.prefix(width)
                    guard hex.count == width, let code = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(code) else {
                        throw ParseFailure(message: "bad \\\(e) escape")
                    }
                    rest = rest.dropFirst(width)
                    text.unicodeScalars.append(scalar)
                default: throw ParseFailure(message: "unknown escape \\\(e)")
                }
            }
            throw ParseFailure(message: "unterminated string")
        }
    }
}

extension StringProtocol {
    public func trimmingBlanks() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" || f == "\r" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\r" { s = s.dropLast() }
        return String(s)
    }
}
