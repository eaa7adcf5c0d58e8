// ~/.netrc as curl and ftp read it: "machine HOST login NAME password SECRET" entries and a "default" one.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import SluiceEngine
import SluiceViewModel

struct Netrc: Sendable, Equatable {
    struct Entry: Sendable, Equatable {
        /// Nil for the "default" entry.
        var machine: String?
        var login: String?
        var password: String?
    }

    var entries: [Entry] = []

    /// The first entry for `host` (names compared without case), else the default entry; nil without a login.
    func credentials(for host: String) -> (String, String)? {
        let entry = entries.first { $0.machine?.lowercased() == host.lowercased() } ?? entries.first { $0.machine == nil }
        guard let entry, let login = entry.login else { return nil }
        return (login, entry.password ?? "")
    }

    /// $NETRC, else ~/.netrc. A missing file is an error: --netrc asked for it.
    static func load() throws -> Netrc {
        let path: String
        if let named = getenv("NETRC"), named.pointee != 0 {
            path = String(cString: named)
        } else if let home = getenv("HOME"), home.pointee != 0 {
            path = String(cString: home) + "/.netrc"
        } else {
            throw CLIFailure(code: 2, message: "--netrc: HOME is not set, so there is no ~/.netrc")
        }
        switch WholeFile.read(path) {
        case .success(let bytes): return parse(String(decoding: bytes, as: UTF8.self))
        case .failure(let failure):
            throw CLIFailure(code: 2, message: "--netrc: cannot read \(Sanitized.text(path)): \(failure.reason)")
        }
    }

    /// Tokens separated by white space; a token may be "quoted" with \ escapes (as curl 7.84 and later read it).
    /// "macdef NAME" skips its macro, which runs to the next empty line; unknown words are skipped.
    static func parse(_ text: String) -> Netrc {
        var result = Netrc()
        var tokens = Tokens(text)
        while let word = tokens.next() {
            switch word {
            case "machine":
                guard let name = tokens.next() else { return result }
                result.entries.append(Entry(machine: name))
            case "default":
                result.entries.append(Entry(machine: nil))
            case "login":
                let value = tokens.next()
                if !result.entries.isEmpty { result.entries[result.entries.count - 1].login = value }
            case "password":
                let value = tokens.next()
                if !result.entries.isEmpty { result.entries[result.entries.count - 1].password = value }
            case "account":
                _ = tokens.next()
            case "macdef":
                tokens.skipMacro()
            default:
                continue
            }
        }
        return result
    }

    private struct Tokens {
        private let characters: [Character]
        private var position = 0

        init(_ text: String) { characters = Array(text) }

        mutating func next() -> String? {
            while position < characters.count, characters[position].isWhitespace { position += 1 }
            guard position < characters.count else { return nil }
            var token = ""
            if characters[position] == "\"" {
                position += 1
                while position < characters.count, characters[position] != "\"" {
                    if characters[position] == "\\", position + 1 < characters.count { position += 1 }
                    token.append(characters[position])
                    position += 1
                }
                position += 1  // the closing quote
                return token
            }
            while position < characters.count, !characters[position].isWhitespace {
                token.append(characters[position])
                position += 1
            }
            return token
        }

        /// After "macdef": the macro's name, then its lines up to an empty line.
        mutating func skipMacro() {
            _ = next()
            while position < characters.count {
                if characters[position] == "\n", position + 1 < characters.count, characters[position + 1] == "\n" {
                    position += 2
                    return
                }
                position += 1
            }
        }
    }
}
