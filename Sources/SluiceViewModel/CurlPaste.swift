// A pasted "Copy as cURL" command read into the request it describes: URL, method, headers, cookies, body, flags.

/// What a browser's "Copy as cURL (bash)" (or a hand-written curl command) asks for, in curl's meanings. Pure: the
/// CLI, the daemon's add and the UI's paste key all read a paste through this. A paste never makes sluice read a
/// local file (`-d @FILE`, `-H @FILE`, `-b FILE`): a command copied from a web page could otherwise post
/// ~/.ssh/id_rsa to a server. Flags sluice has no meaning for are kept in `ignoredFlags` for one warning.
public struct CurlPaste: Sendable, Equatable {
    public struct Failure: Error, Equatable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    public enum HTTPVersion: Sendable, Equatable { case http1_1, http2 }

    /// The URLs, in order (curl fetches each); `--url` and plain words alike.
    public var urls: [String] = []
    /// `-X`; nil when the paste gives none (then GET, or POST with a body, as curl).
    public var method: String?
    /// `-H` lines as given ("Name: value"), with `-A` and `-e` as User-Agent and Referer lines, in order.
    public var headers: [String] = []
    /// `-b NAME=VALUE` texts, in order.
    public var cookies: [String] = []
    /// `-d`, `--data-raw`, `--data-binary`, `--data-ascii`, `--data-urlencode` joined with `&`, as curl; nil: none.
    public var body: [UInt8]?
    /// `-u USER[:PASSWORD]`.
    public var user: String?
    public var insecure = false
    /// `--compressed`: sluice always asks for and decodes every encoding its libcurl knows.
    public var compressed = false
    /// `-L`: sluice follows redirects in any case.
    public var followsRedirects = false
    public var httpVersion: HTTPVersion?
    /// `-x`.
    public var proxy: String?
    /// `-o`.
    public var output: String?
    /// `-g`: URLs are taken as they are, with no `[1-3]` or `{a,b}` expansion.
    public var globOff = false
    /// `-G`: the data went into each URL's query (see `parse`); the request is a GET unless `-X` says otherwise.
    public var dataInQuery = false
    /// How long, how often and how far, as a script's curl line says (`curl -fsSL --retry 3 -m 60 URL`).
    public var limits = Limits()
    /// Flags curl has and sluice does not act on, each named once, in the order met (values are never kept: a
    /// `--oauth2-bearer TOKEN` must not reach a warning).
    public var ignoredFlags: [String] = []

    /// `-f`, `-m`, `--connect-timeout`, `--max-redirs` and the `--retry` family: flags of install scripts and
    /// documentation more than of browsers. `-f` matters most: `curl -fsSL URL | sh` must not run an error page.
    public struct Limits: Sendable, Equatable {
        /// `-f/--fail`: a response of 400 or more writes nothing.
        public var fail = false
        /// `--fail-with-body`: sluice's way anyway; refused with `-f`, as curl refuses the pair.
        public var failWithBody = false
        /// `-m/--max-time`, seconds.
        public var maxTime: Double?
        public var connectTimeout: Double?
        /// `--max-redirs`; -1 means no limit.
        public var maxRedirects: Int?
        public var retries: Int?
        public var retryDelay: Double?
        public var retryMaxTime: Double?
        public var retryConnectionRefused = false
        public var retryAllErrors = false

        public init() {}

        /// Those given, named for the warning of a command that does not take them (the daemon's and the UI's add,
        /// whose session is shared); nil when none. Not -f: their downloads never save an error page anyway.
        public var unused: String? {
            let named: [(Bool, String)] = [
                (maxTime != nil, "-m"), (connectTimeout != nil, "--connect-timeout"),
                (maxRedirects != nil, "--max-redirs"),
                (retries != nil || retryDelay != nil || retryMaxTime != nil || retryConnectionRefused || retryAllErrors, "--retry"),
            ]
            let list = named.filter(\.0).map(\.1)
            return list.isEmpty ? nil : list.joined(separator: ", ")
        }
    }

    public init() {}

    /// The method the request goes with: `-X`, else POST with a body, else GET.
    public var effectiveMethod: String { method ?? (body == nil ? "GET" : "POST") }

    /// The one warning for the flags sluice ignores, or nil.
    public var warning: String? {
        guard !ignoredFlags.isEmpty else { return nil }
        let list = ignoredFlags.map(Sanitized.text).joined(separator: ", ")
        // Some of them (-v, -w) are sluice's flags too: given to sluice itself, they work.
        return "the pasted command's \(list) \(ignoredFlags.count == 1 ? "is" : "are") not taken from a paste and \(ignoredFlags.count == 1 ? "is" : "are") ignored"
    }

    /// Reads a pasted command. It may begin with `curl` (or a path to it) or go straight to its arguments.
    /// `dataInQuery`: a `-G` typed beside the paste, which takes its data as the paste's own `-G` would.
    public static func parse(_ text: String, dataInQuery typedGet: Bool = false) throws(Failure) -> CurlPaste {
        let words: [[UInt8]]
        do throws(ShellWords.Failure) { words = try ShellWords.split(text) } catch { throw Failure(message: error.message) }
        var reader = ArgumentReader(words: words)
        if let first = reader.peekText() {
            let name = first.split(separator: "/").last.map(String.init) ?? first
            if name == "curl" || name == "curl.exe" {
                reader.skip()
            } else if !first.hasPrefix("-") && !first.contains(".") && !first.contains(":") {
                throw Failure(message: "not a curl command: it begins with \(Sanitized.text(first))")
            }
        }
        var paste = CurlPaste()
        try paste.read(&reader)
        guard !paste.urls.isEmpty else { throw Failure(message: "the pasted command has no URL") }
        if typedGet { paste.dataInQuery = true }
        if paste.dataInQuery, let body = paste.body {
            // As curl -G: the data after each URL's query, and no body. It went as a POST's body (found by a tester).
            guard body.allSatisfy(URLQueryText.isQueryByte) else {
                throw Failure(message: "-G: the pasted data is not a URL query as it stands (a space, a quote...); paste it with --data-urlencode")
            }
            let query = String(decoding: body, as: UTF8.self)
            paste.urls = paste.urls.map { URLQueryText.appending(query, to: $0) }
            paste.body = nil
        }
        if paste.limits.fail && paste.limits.failWithBody {
            throw Failure(message: "the pasted command gives both -f and --fail-with-body, which curl refuses too")
        }
        return paste
    }

    private mutating func read(_ reader: inout ArgumentReader) throws(Failure) {
        var bodyParts: [[UInt8]] = []
        defer { if !bodyParts.isEmpty { body = Array(bodyParts.joined(separator: [UInt8(ascii: "&")])) } }
        while let word = reader.next() {
            guard word.count > 1, word.first == UInt8(ascii: "-") else {
                urls.append(String(decoding: word, as: UTF8.self))
                continue
            }
            if word[1] == UInt8(ascii: "-") {
                let name = String(decoding: word.dropFirst(2), as: UTF8.self)
                try long(name, &reader, &bodyParts)
                continue
            }
            // A bundle of short options (-sSL, -XPOST, -kLo FILE): one taking a value takes the rest of the word,
            // or the next word when the rest is empty.
            var i = 1
            while i < word.count {
                let letter = word[i]
                i += 1
                var value: [UInt8] = []
                if CurlFlags.shortWithValue.contains(letter) {
                    if i < word.count {
                        value = Array(word[i...])
                        i = word.count
                    } else if let next = reader.next() {
                        value = next
                    } else {
                        throw Failure(message: "-\(String(UnicodeScalar(letter))) needs a value")
                    }
                }
                try short(letter, value, &bodyParts)
            }
        }
    }

    private mutating func short(_ letter: UInt8, _ value: [UInt8], _ bodyParts: inout [[UInt8]]) throws(Failure) {
        let names: [UInt8: String] = [
            UInt8(ascii: "X"): "request", UInt8(ascii: "H"): "header", UInt8(ascii: "b"): "cookie",
            UInt8(ascii: "d"): "data", UInt8(ascii: "u"): "user", UInt8(ascii: "k"): "insecure",
            UInt8(ascii: "L"): "location", UInt8(ascii: "A"): "user-agent", UInt8(ascii: "e"): "referer",
            UInt8(ascii: "x"): "proxy", UInt8(ascii: "o"): "output", UInt8(ascii: "g"): "globoff",
            UInt8(ascii: "s"): "silent", UInt8(ascii: "S"): "show-error", UInt8(ascii: "f"): "fail",
            UInt8(ascii: "m"): "max-time", UInt8(ascii: "G"): "get", UInt8(ascii: "F"): "form",
            UInt8(ascii: "T"): "upload-file", UInt8(ascii: "I"): "head",
        ]
        let flag = "-" + String(UnicodeScalar(letter))
        guard let name = names[letter] else { return note(flag) }
        try apply(name, shownAs: flag, value: value, &bodyParts)
    }

    private mutating func long(_ name: String, _ reader: inout ArgumentReader, _ bodyParts: inout [[UInt8]]) throws(Failure) {
        let known = Set<String>([
            "url", "request", "header", "cookie", "data", "data-raw", "data-binary", "data-ascii", "data-urlencode",
            "user", "insecure", "compressed", "location", "user-agent", "referer", "http1.1", "http2", "proxy",
            "output", "globoff", "silent", "show-error", "fail", "fail-with-body", "max-time", "connect-timeout",
            "max-redirs", "retry", "retry-delay", "retry-max-time", "retry-connrefused", "retry-all-errors", "get",
        ]).union(Self.refused)
        let takesValue = CurlFlags.longWithValue.contains(name)
        var value: [UInt8] = []
        if takesValue {
            guard let next = reader.next() else { throw Failure(message: "--\(Sanitized.text(name)) needs a value") }
            value = next
        }
        guard known.contains(name) else { return note("--" + name) }
        try apply(name, shownAs: "--" + name, value: value, &bodyParts)
    }

    /// One flag sluice knows, by its long name.
    private mutating func apply(_ name: String, shownAs flag: String, value: [UInt8],
                                _ bodyParts: inout [[UInt8]]) throws(Failure) {
        let text = String(decoding: value, as: UTF8.self)
        switch name {
        case "url": urls.append(text)
        case "request": method = text
        case "header":
            if text.hasPrefix("@") { throw Self.readsFile(flag, text) }
            headers.append(text)
        case "user-agent": headers.append("User-Agent: " + text)
        case "referer": headers.append("Referer: " + text)
        case "cookie":
            guard text.contains("=") else {
                throw Failure(message: "\(flag) \(Sanitized.text(text)) names a cookie file; a paste gives cookies as text (-b 'name=value'), and sluice does not read files a paste names")
            }
            cookies.append(text)
        case "data", "data-ascii", "data-binary":
            if value.first == UInt8(ascii: "@") { throw Self.readsFile(flag, text) }
            bodyParts.append(value)
        case "data-raw": bodyParts.append(value)
        case "data-urlencode": bodyParts.append(try Self.urlEncodedPart(value, flag: flag))
        case "user": user = text
        case "insecure": insecure = true
        case "compressed": compressed = true
        case "location": followsRedirects = true
        case "http1.1": httpVersion = .http1_1
        case "http2": httpVersion = .http2
        case "proxy": proxy = text
        case "output": output = text
        case "globoff": globOff = true
        case "silent", "show-error": break  // curl's own meter and messages; sluice prints its own
        case "fail": limits.fail = true
        case "fail-with-body": limits.failWithBody = true
        case "max-time": limits.maxTime = try Self.seconds(flag, text)
        case "connect-timeout": limits.connectTimeout = try Self.seconds(flag, text)
        case "max-redirs": limits.maxRedirects = try Self.count(flag, text)
        case "retry": limits.retries = try Self.count(flag, text)
        case "retry-delay": limits.retryDelay = try Self.seconds(flag, text)
        case "retry-max-time": limits.retryMaxTime = try Self.seconds(flag, text)
        case "retry-connrefused": limits.retryConnectionRefused = true
        case "retry-all-errors": limits.retryAllErrors = true
        case "get": dataInQuery = true
        case _ where Self.refused.contains(name):
            throw Failure(message: "the pasted command's \(flag) makes another request than sluice would send from a paste (its method or body); type it with sluice's own flags (get --json, get -d, put FILE URL, get -I)")
        default: note(flag)
        }
    }

    /// Flags that change the request's method or body in a way a paste does not carry: refused, not ignored with a
    /// warning, which sent a GET for a form or a JSON post and exited 0 (found by a tester).
    static let refused: Set<String> = ["json", "form", "form-string", "upload-file", "head"]

    /// A number of seconds as curl reads one (a decimal point allowed); what it may be is the command's check.
    private static func seconds(_ flag: String, _ text: String) throws(Failure) -> Double {
        guard let value = Double(text), value.isFinite else {
            throw Failure(message: "\(flag) \(Sanitized.text(text)): not a number of seconds")
        }
        return value
    }

    private static func count(_ flag: String, _ text: String) throws(Failure) -> Int {
        guard let value = Int(text) else { throw Failure(message: "\(flag) \(Sanitized.text(text)): not a whole number") }
        return value
    }

    private mutating func note(_ flag: String) {
        if !ignoredFlags.contains(flag) { ignoredFlags.append(flag) }
    }

    private static func readsFile(_ flag: String, _ argument: String) -> Failure {
        Failure(message: "\(flag) \(Sanitized.text(argument)) reads a local file; sluice does not read files a paste names (give the content itself, or type the flag on the command line)")
    }

    /// `--data-urlencode`'s part (URLEncodedData); its @FILE forms read a file, which a paste may not.
    static func urlEncodedPart(_ argument: [UInt8], flag: String) throws(Failure) -> [UInt8] {
        try URLEncodedData.part(argument) { (_: [UInt8]) throws(Failure) -> [UInt8] in
            throw readsFile(flag, String(decoding: argument, as: UTF8.self))
        }
    }
}

/// The paste's words, one at a time.
private struct ArgumentReader {
    let words: [[UInt8]]
    var at = 0

    mutating func next() -> [UInt8]? {
        guard at < words.count else { return nil }
        defer { at += 1 }
        return words[at]
    }

    func peekText() -> String? { at < words.count ? String(decoding: words[at], as: UTF8.self) : nil }

    mutating func skip() { at += 1 }
}
