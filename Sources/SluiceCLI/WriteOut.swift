// curl's -w/--write-out: a format read once, then filled in after each transfer from what it ended with
// (`WriteOutFacts`). The same variables, escapes and number shapes as curl 7.88's, so a script's
// `-w '%{http_code}\n'` or `-w @format.txt` works unchanged; text that came from a server is sanitized, since the
// output may be a terminal.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SluiceEngine
import SluiceViewModel

struct WriteOut: Sendable, Equatable {
    enum Piece: Sendable, Equatable {
        case text(String)
        case variable(Variable)
        /// `%header{name}`: that field of the last response, nothing when it has none.
        case header(String)
        /// `%{stdout}`, `%{stderr}`: where the pieces after it go.
        case toStandardOutput, toStandardError
        /// `%{onerror}`: the rest is written only when the transfer failed.
        case onError
        /// `%{json}`: every variable as one JSON object.
        case json
    }

    /// The variables sluice knows, named as curl names them.
    enum Variable: String, CaseIterable, Sendable {
        case contentType = "content_type", errorMessage = "errormsg", exitCode = "exitcode"
        case filenameEffective = "filename_effective", httpCode = "http_code", httpVersion = "http_version"
        case method, numConnects = "num_connects", numHeaders = "num_headers", numRedirects = "num_redirects"
        case remoteIP = "remote_ip", remotePort = "remote_port", responseCode = "response_code", scheme
        case sizeDownload = "size_download", sizeHeader = "size_header", sizeUpload = "size_upload"
        case speedDownload = "speed_download", speedUpload = "speed_upload"
        case timeAppconnect = "time_appconnect", timeConnect = "time_connect", timeNamelookup = "time_namelookup"
        case timePretransfer = "time_pretransfer", timeRedirect = "time_redirect"
        case timeStarttransfer = "time_starttransfer", timeTotal = "time_total"
        case url, urlEffective = "url_effective", urlNumber = "urlnum"
    }

    let pieces: [Piece]
    /// The `%{name}`s this sluice does not know, in order: they write nothing (curl warns at each transfer; sluice
    /// once, when it reads the format).
    let unknown: [String]

    /// Reads the format as curl's ourWriteOut does: `%%`, `%{name}`, `%header{name}`, and `\n`, `\r`, `\t`; any
    /// other `%` or `\` sequence is written as it stands, and so is a `%{` with no `}` after it.
    init(format: String) {
        var pieces: [Piece] = []
        var unknown: [String] = []
        var literal = ""
        func flush() {
            if !literal.isEmpty { pieces.append(.text(literal)) }
            literal = ""
        }
        let chars = Array(format.unicodeScalars)
        var i = 0
        while i < chars.count {
            let c = chars[i]
            let next = i + 1 < chars.count ? chars[i + 1] : nil
            if c == "%", let next {
                if next == "%" {
                    literal += "%"
                    i += 2
                } else if next == "{" {
                    guard let close = chars[(i + 2)...].firstIndex(of: "}") else {
                        literal += "%{"
                        i += 2
                        continue
                    }
                    let name = String(String.UnicodeScalarView(chars[(i + 2)..<close]))
                    let piece: Piece?
                    switch name.lowercased() {  // curl compares the names without case
                    case "stdout": piece = .toStandardOutput
                    case "stderr": piece = .toStandardError
                    case "onerror": piece = .onError
                    case "json": piece = .json
                    case let other: piece = Variable(rawValue: other).map(Piece.variable)
                    }
                    if let piece {
                        flush()
                        pieces.append(piece)
                    } else {
                        unknown.append(name)
                    }
                    i = close + 1
                } else if chars[(i + 1)...].starts(with: "header{".unicodeScalars) {
                    guard let close = chars[(i + 8)...].firstIndex(of: "}") else {
                        literal += "%header{"
                        i += 8
                        continue
                    }
                    flush()
                    pieces.append(.header(String(String.UnicodeScalarView(chars[(i + 8)..<close]))))
                    i = close + 1
                } else {
                    literal.unicodeScalars.append(c)
                    literal.unicodeScalars.append(next)
                    i += 2
                }
            } else if c == "\\", let next {
                switch next {
                case "n": literal += "\n"
                case "r": literal += "\r"
                case "t": literal += "\t"
                default:
                    literal.unicodeScalars.append(c)
                    literal.unicodeScalars.append(next)
                }
                i += 2
            } else {
                literal.unicodeScalars.append(c)
                i += 1
            }
        }
        flush()
        self.pieces = pieces
        self.unknown = unknown
    }

    /// What goes to standard output and to standard error for one transfer.
    func render(_ facts: WriteOutFacts) -> (output: String, error: String) {
        var output = ""
        var error = ""
        var toError = false
        func put(_ text: String) {
            if toError { error += text } else { output += text }
        }
        for piece in pieces {
            switch piece {
            case .text(let text): put(text)
            case .variable(let variable): put(facts.text(of: variable))
            case .header(let name): put(facts.response?.headers[name].map(Sanitized.text) ?? "")
            case .toStandardOutput: toError = false
            case .toStandardError: toError = true
            case .onError: if facts.exitCode == 0 { return (output, error) }
            case .json: put(facts.json)
            }
        }
        return (output, error)
    }
}

extension WriteOut {
    /// `-w`'s format, if given; a variable it does not know is named once, as a warning.
    static func option(_ value: String?) throws -> WriteOut? {
        guard let value else { return nil }
        let format = try read(value)
        for name in format.unknown { StandardStreams.warning("-w: unknown variable '\(Sanitized.text(name))'") }
        return format
    }

    /// `-w VALUE`: the format itself, or `@FILE` (`@-`: standard input) holding it, as curl reads it.
    static func read(_ value: String) throws -> WriteOut {
        guard value.hasPrefix("@") else { return WriteOut(format: value) }
        let path = String(value.dropFirst())
        switch path == "-" ? WholeFile.read(descriptor: 0) : WholeFile.read(path) {
        case .success(let data): return WriteOut(format: String(decoding: data, as: UTF8.self))
        case .failure(let failure):
            throw CLIFailure(code: 2, message: "-w: cannot read \(Sanitized.text(path)): \(failure.reason)")
        }
    }

    /// Runs one URL's transfer, which fills in `facts`, then writes its text, whether it failed or not (as curl); not
    /// after Ctrl-C or SIGTERM, which end the command there.
    static func reporting(_ format: WriteOut?, _ facts: WriteOutFacts,
                          _ transfer: (inout WriteOutFacts) throws -> Void) throws {
        var facts = facts
        do {
            try transfer(&facts)
        } catch {
            let failure = error as? CLIFailure ?? CLIFailure(code: 1, message: "\(error)")
            if let format, failure.code <= 128 {
                facts.failed(failure)
                format.emit(facts)
            }
            throw error
        }
        format?.emit(facts)
    }

    /// Writes one transfer's text: standard output's part through `output` (after its body), standard error's even
    /// under -s (the user asked for it, as curl writes it).
    func emit(_ facts: WriteOutFacts, output: (String) -> Void = StandardStreams.output) {
        let (text, error) = render(facts)
        if !text.isEmpty { output(text) }
        if !error.isEmpty { StandardStreams.errorAsked(error) }
    }
}
