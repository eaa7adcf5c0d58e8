// A pasted shell command split into its words as a POSIX shell would, for the quoting browsers write.

/// The words of one command line: single and double quotes, `$'...'` with bash's escapes, backslashes and
/// backslash-newline continuations. Nothing is expanded or run: a variable, a command substitution, a pipe or a
/// second command is refused by name, because the words they would give are unknowable here and guessing would
/// send a request the user never saw. Windows cmd quoting (`^"`, Chrome's "Copy as cURL (cmd)") is refused too.
/// Words are bytes: `$'\xe9'` is one byte, as bash makes it, and a body may hold any.
public enum ShellWords {
    public struct Failure: Error, Equatable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    public static func split(_ text: String) throws(Failure) -> [[UInt8]] {
        var reader = Reader(Array(text.utf8))
        return try reader.words()
    }

    private struct Reader {
        let bytes: [UInt8]
        var at = 0
        var line = 1

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        mutating func words() throws(Failure) -> [[UInt8]] {
            if looksLikeWindowsCmd() {
                throw Failure(message: "this is Windows cmd quoting (^\"...^\"), which sluice does not read; copy the request as cURL (bash) instead")
            }
            var result: [[UInt8]] = []
            var word: [UInt8] = []
            var inWord = false
            func finish() {
                if inWord { result.append(word) }
                word = []
                inWord = false
            }
            while at < bytes.count {
                let byte = bytes[at]
                switch byte {
                case ascii(" "), ascii("\t"), ascii("\r"):
                    finish()
                    at += 1
                case ascii("\n"):
                    finish()
                    at += 1
                    line += 1
                    if restHoldsAnotherCommand() {
                        throw Failure(message: "line \(line - 1) ends the command without a backslash, and more follows; paste one command (lines joined with ' \\')")
                    }
                case ascii("#") where !inWord:
                    while at < bytes.count, bytes[at] != ascii("\n") { at += 1 }  // a comment, as the shell reads it
                case ascii("\\"):
                    at += 1
                    if at < bytes.count, bytes[at] == ascii("\r"), at + 1 < bytes.count, bytes[at + 1] == ascii("\n") { at += 1 }
                    if at >= bytes.count {
                        inWord = true
                        word.append(ascii("\\"))  // bash keeps a last lone backslash
                    } else if bytes[at] == ascii("\n") {
                        at += 1  // a continuation: the two bytes vanish
                        line += 1
                    } else {
                        inWord = true
                        word.append(bytes[at])
                        at += 1
                    }
                case ascii("'"):
                    inWord = true
                    try singleQuoted(into: &word)
                case ascii("\""):
                    inWord = true
                    try doubleQuoted(into: &word)
                case ascii("$"):
                    inWord = true
                    try dollar(into: &word)
                case ascii("`"):
                    throw Failure(message: "line \(line): a command substitution (`...`) cannot be read from a paste")
                case ascii(";"), ascii("&"), ascii("|"), ascii("<"), ascii(">"), ascii("("), ascii(")"):
                    let what = String(decoding: [byte], as: UTF8.self)
                    throw Failure(message: "line \(line): an unquoted \(what) is shell syntax (a second command, a pipe or a redirection), which a paste cannot hold; quote the word it is in")
                default:
                    inWord = true
                    word.append(byte)
                    at += 1
                }
            }
            finish()
            return result
        }

        /// After a newline: whether anything but blanks and comments remains.
        func restHoldsAnotherCommand() -> Bool {
            var i = at
            while i < bytes.count {
                switch bytes[i] {
                case ascii(" "), ascii("\t"), ascii("\r"), ascii("\n"): i += 1
                case ascii("#"): while i < bytes.count, bytes[i] != ascii("\n") { i += 1 }
                default: return true
                }
            }
            return false
        }

        func looksLikeWindowsCmd() -> Bool {
            for i in bytes.indices.dropLast() where bytes[i] == ascii("^") {
                let next = bytes[i + 1]
                if next == ascii("\"") || next == ascii("\n") || next == ascii("\r") { return true }
            }
            return false
        }

        mutating func singleQuoted(into word: inout [UInt8]) throws(Failure) {
            let startLine = line
            at += 1
            while at < bytes.count {
                let byte = bytes[at]
                at += 1
                if byte == ascii("'") { return }
                if byte == ascii("\n") { line += 1 }
                word.append(byte)
            }
            throw Failure(message: "a ' quote that begins on line \(startLine) is never closed")
        }

        mutating func doubleQuoted(into word: inout [UInt8]) throws(Failure) {
            let startLine = line
            at += 1
            while at < bytes.count {
                let byte = bytes[at]
                switch byte {
                case ascii("\""):
                    at += 1
                    return
                case ascii("\\"):
                    // Inside double quotes a backslash escapes only $ ` " \ and the newline.
                    if at + 1 < bytes.count {
                        let next = bytes[at + 1]
                        if next == ascii("\n") {
                            at += 2
                            line += 1
                            continue
                        }
                        if [ascii("$"), ascii("`"), ascii("\""), ascii("\\")].contains(next) {
                            word.append(next)
                            at += 2
                            continue
                        }
                    }
                    word.append(byte)
                    at += 1
                case ascii("$") where at + 1 < bytes.count && Self.startsExpansion(bytes[at + 1]):
                    throw Failure(message: "line \(line): \(expansionText()) inside double quotes is a shell expansion, which a paste cannot hold; use single quotes")
                case ascii("`"):
                    throw Failure(message: "line \(line): a command substitution (`...`) cannot be read from a paste")
                default:
                    if byte == ascii("\n") { line += 1 }
                    word.append(byte)
                    at += 1
                }
            }
            throw Failure(message: "a \" quote that begins on line \(startLine) is never closed")
        }

        /// `$'...'`, `$"..."`, or a `$` that stays a dollar sign; an expansion is refused.
        mutating func dollar(into word: inout [UInt8]) throws(Failure) {
            guard at + 1 < bytes.count else {
                word.append(ascii("$"))
                at += 1
                return
            }
            let next = bytes[at + 1]
            if next == ascii("'") {
                at += 1
                return try ansiQuoted(into: &word)
            }
            if next == ascii("\"") {
                at += 1  // bash's locale translation, which changes nothing here
                return try doubleQuoted(into: &word)
            }
            if Self.startsExpansion(next) {
                throw Failure(message: "line \(line): \(expansionText()) is a shell expansion, which a paste cannot hold; put its value in the command")
            }
            word.append(ascii("$"))
            at += 1
        }

        static func startsExpansion(_ byte: UInt8) -> Bool {
            isNameByte(byte) || "{(@*#?$!-".utf8.contains(byte)
        }

        static func isNameByte(_ byte: UInt8) -> Bool {
            (byte >= ascii("a") && byte <= ascii("z")) || (byte >= ascii("A") && byte <= ascii("Z"))
                || (byte >= ascii("0") && byte <= ascii("9")) || byte == ascii("_")
        }

        /// The `$...` at `at`, for a message: `$NAME`, `${`, `$(`.
        func expansionText() -> String {
            var end = at + 1
            if end < bytes.count, Self.isNameByte(bytes[end]) {
                while end < bytes.count, Self.isNameByte(bytes[end]), end - at < 40 { end += 1 }
            } else {
                end = min(bytes.count, end + 1)
            }
            return Sanitized.text(String(decoding: bytes[at..<end], as: UTF8.self))
        }

        /// bash's ANSI-C quoting: `at` is on the opening quote.
        mutating func ansiQuoted(into word: inout [UInt8]) throws(Failure) {
            let startLine = line
            at += 1
            while at < bytes.count {
                let byte = bytes[at]
                at += 1
                if byte == ascii("'") { return }
                if byte == ascii("\n") { line += 1 }
                guard byte == ascii("\\"), at < bytes.count else {
                    word.append(byte)
                    continue
                }
                let code = bytes[at]
                at += 1
                switch code {
                case ascii("a"): word.append(7)
                case ascii("b"): word.append(8)
                case ascii("e"), ascii("E"): word.append(27)
                case ascii("f"): word.append(12)
                case ascii("n"): word.append(10)
                case ascii("r"): word.append(13)
                case ascii("t"): word.append(9)
                case ascii("v"): word.append(11)
                case ascii("\\"), ascii("'"), ascii("\""), ascii("?"): word.append(code)
                case ascii("0")...ascii("7"):
                    var value = UInt32(code - ascii("0"))
                    var digits = 1
                    while digits < 3, at < bytes.count, bytes[at] >= ascii("0"), bytes[at] <= ascii("7") {
                        value = value * 8 + UInt32(bytes[at] - ascii("0"))
                        at += 1
                        digits += 1
                    }
                    word.append(UInt8(truncatingIfNeeded: value))
                case ascii("x"):
                    if let value = hexDigits(upTo: 2) {
                        word.append(UInt8(truncatingIfNeeded: value))  // a byte, not a character, as bash
                    } else {
                        word += [ascii("\\"), code]
                    }
                case ascii("u"), ascii("U"):
                    if let value = hexDigits(upTo: code == ascii("u") ? 4 : 8) {
                        word += Array(String(Character(Unicode.Scalar(value) ?? "\u{FFFD}")).utf8)
                    } else {
                        word += [ascii("\\"), code]
                    }
                case ascii("c") where at < bytes.count:
                    word.append(bytes[at] & 0x1F)
                    at += 1
                default:
                    word += [ascii("\\"), code]  // bash keeps an unknown escape as it is
                }
            }
            throw Failure(message: "a $' quote that begins on line \(startLine) is never closed")
        }

        mutating func hexDigits(upTo count: Int) -> UInt32? {
            var value: UInt32 = 0
            var digits = 0
            while digits < count, at < bytes.count, let digit = Self.hexValue(bytes[at]) {
                value = value * 16 + digit
                at += 1
                digits += 1
            }
            return digits == 0 ? nil : value
        }

        static func hexValue(_ byte: UInt8) -> UInt32? {
            switch byte {
            case ascii("0")...ascii("9"): UInt32(byte - ascii("0"))
            case ascii("a")...ascii("f"): UInt32(byte - ascii("a") + 10)
            case ascii("A")...ascii("F"): UInt32(byte - ascii("A") + 10)
            default: nil
            }
        }
    }
}

private func ascii(_ scalar: Unicode.Scalar) -> UInt8 { UInt8(ascii: scalar) }
