// curl's everyday request flags, shared by `sluice get` and `sluice put`, with curl's meanings: headers, method,
// body, server and proxy credentials, cookies, proxy, TLS trust and HTTP version.
import ArgumentParser
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

struct RequestOptions: ParsableArguments {
    @Option(name: [.customShort("H"), .customLong("header")],
            parsing: .unconditionalSingleValue, help: ArgumentHelp("Add a request header, 'Name: value' (repeatable); 'Name:' removes one sluice would send; @FILE reads one header a line.", valueName: "header"))
    var headers: [String] = []

    @Option(name: [.customShort("X"), .customLong("request"), .customLong("method")],
            parsing: .unconditional, help: ArgumentHelp("The request method (GET, or POST with -d; PUT for put).", valueName: "method"))
    var method: String?

    @Option(name: .customLong("data"),
            parsing: .unconditionalSingleValue, help: ArgumentHelp("Send DATA as the body (POST, form-encoded unless -H sets Content-Type); @FILE reads a file without its line breaks, @- standard input; several -d are joined with &.", valueName: "data"))
    var data: [String] = []

    @Option(name: .customLong("data-binary"),
            parsing: .unconditionalSingleValue, help: ArgumentHelp("As -d, but @FILE is sent byte for byte.", valueName: "data"))
    var dataBinary: [String] = []

    @Option(name: .customLong("data-raw"), parsing: .unconditionalSingleValue, help: ArgumentHelp("As -d, with no @FILE: the text as it is.", valueName: "data"))
    var dataRaw: [String] = []

    @Option(name: .customLong("data-urlencode"),
            parsing: .unconditionalSingleValue, help: ArgumentHelp("As -d, URL-encoded as curl's: 'content', 'name=content', '@FILE' or 'name@FILE' (the part after = or the file's bytes are encoded).", valueName: "data"))
    var dataURLEncoded: [String] = []

    @Option(name: .customLong("json"),
            parsing: .unconditionalSingleValue, help: ArgumentHelp("Send this JSON as the body (POST), with Content-Type and Accept application/json unless -H says otherwise; @FILE reads a file, @- standard input; several are joined as they are.", valueName: "data"))
    var json: [String] = []

    @Flag(name: [.customShort("G"), .customLong("get")],
          help: "Send the -d data in the URL's query with GET (HEAD with -I) instead of as a POST body.")
    var get = false

    @Option(name: [.customShort("u"), .customLong("user")],
            parsing: .unconditional, help: ArgumentHelp("Server credentials, sent as Basic (or with --digest or --anyauth, the answer to the server's challenge); without :PASSWORD it is asked for on the terminal (not echoed).", valueName: "user[:password]"))
    var user: String?

    @Flag(exclusivity: .chooseLast) var serverAuth: ServerAuthOption = .basic

    @Flag(name: .customLong("netrc"), help: "Take the server credentials for each host from ~/.netrc (or $NETRC).")
    var netrc = false

    @Option(name: [.customShort("b"), .customLong("cookie")],
            parsing: .unconditionalSingleValue, help: ArgumentHelp("Send cookies: 'name=value; other=value', or read them from FILE (Netscape format).", valueName: "data|file"))
    var cookies: [String] = []

    @Option(name: [.customShort("c"), .customLong("cookie-jar")],
            parsing: .unconditional, help: ArgumentHelp("Write the session's cookies to FILE (Netscape format) at the end.", valueName: "file"))
    var cookieJar: String?

    @Option(name: [.customShort("x"), .customLong("proxy")],
            parsing: .unconditional, help: ArgumentHelp("Use this proxy: [http|https|socks4|socks4a|socks5|socks5h://][user:password@]host[:port]; \"\" for none, whatever the environment says.", valueName: "url"))
    var proxy: String?

    @Option(name: [.customShort("U"), .customLong("proxy-user")],
            parsing: .unconditional, help: ArgumentHelp("Proxy credentials; without :PASSWORD it is asked for on the terminal.", valueName: "user[:password]"))
    var proxyUser: String?

    @Flag(exclusivity: .chooseLast) var proxyAuth: ProxyAuthOption = .proxyBasic

    @Option(name: .customLong("noproxy"),
            parsing: .unconditional, help: ArgumentHelp("Hosts reached without the proxy (no_proxy's syntax: 'localhost,.example.org', '*').", valueName: "list"))
    var noProxy: String?

    @Flag(name: [.customShort("k"), .customLong("insecure")],
          help: "Accept any server certificate (the connection is encrypted but the server is not checked).")
    var insecure = false

    @Option(name: .customLong("cacert"), parsing: .unconditional, help: ArgumentHelp("Trust the certificates in this PEM file instead of the system's.", valueName: "file"))
    var caCert: String?

    @Flag(name: .customLong("http1.1"), help: "Use HTTP/1.1 only.")
    var http1_1 = false

    @Flag(name: .customLong("http2"), help: "Ask for HTTP/2 (the default over https; an upgrade offer over http).")
    var http2 = false

    @Option(name: [.customShort("A"), .customLong("user-agent")],
            parsing: .unconditional, help: ArgumentHelp("Send this User-Agent, not sluice/VERSION ('' sends none; an -H 'User-Agent: ...' wins).", valueName: "name"))
    var userAgent: String?

    @Option(name: [.customShort("e"), .customLong("referer")],
            parsing: .unconditional, help: ArgumentHelp("Send this Referer (an -H 'Referer: ...' wins; curl's ';auto' suffix is dropped).", valueName: "url"))
    var referer: String?

    @Option(name: .customLong("connect-timeout"),
            parsing: .unconditional, help: ArgumentHelp("Give up on a connection (its TLS handshake included) not made within this many seconds.", valueName: "seconds"))
    var connectTimeout: Double?

    @Option(name: .customLong("max-redirs"), parsing: .unconditional,
            help: ArgumentHelp("Follow at most this many redirects (default 20; -1: no limit); one more fails the transfer.", valueName: "N"))
    var maxRedirects: Int?

    /// curl's --compressed: sluice asks for every encoding its libcurl decodes and decodes it, as URLSession does.
    @Flag(name: .customLong("compressed"), help: "Ask for a compressed response and decode it (sluice always does for what it shows; a saved file keeps the bytes as sent).")
    var compressed = false

    /// curl's -L, so that a curl command line runs as typed: redirects are followed in any case (URLSession's way;
    /// a delegate may refuse one), so it changes nothing.
    @Flag(name: [.customShort("L"), .customLong("location")], help: "Follow redirects (sluice always does; taken for curl's sake).")
    var location = false

    /// Checks and reads what the flags name (files, standard input, the terminal for a password) once, before
    /// any transfer. `takesBody` is false for `put`, whose body is its file.
    /// `shortData`: the values of `-d`, which `get` and `put` take as curl does and the UI takes as --download.
    func prepare(defaultMethod: String = "GET", takesBody: Bool = true, shortData: [String] = [],
                 askPassword: (String) -> String? = PasswordPrompt.ask) throws -> PreparedRequest {
        let data = shortData + self.data
        var prepared = PreparedRequest(method: defaultMethod)
        if let method {
            guard !method.isEmpty, method.utf8.allSatisfy(HeaderSyntax.isTokenByte) else {
                throw CLIFailure(code: 2, message: "-X: not a method: \(Sanitized.text(method))")
            }
            prepared.method = method
        }

        for argument in headers {
            let lines = argument.hasPrefix("@") ? try Self.readLines(String(argument.dropFirst()), flag: "-H") : [argument]
            for line in lines where !line.isEmpty {
                try prepared.addHeader(line)
            }
        }
        // After -H, which wins as in curl; "Name:" there (no value) removes the header, -A's or -e's too.
        if let userAgent, prepared.headers["User-Agent"] == nil {
            try prepared.addHeader("User-Agent: " + userAgent, flag: "-A")
        }
        if let referer, prepared.headers["Referer"] == nil {
            let url = referer.hasSuffix(";auto") ? String(referer.dropLast(5)) : referer
            if !url.isEmpty { try prepared.addHeader("Referer: " + url, flag: "-e") }
        }

        if !json.isEmpty {
            guard takesBody else { throw CLIFailure(code: 2, message: "put sends its FILE as the body; --json is for get") }
            guard data.isEmpty, dataBinary.isEmpty, dataRaw.isEmpty, dataURLEncoded.isEmpty, !get else {
                throw CLIFailure(code: 2, message: "--json is the whole body: give it without -d, --data-* or -G")
            }
            prepared.body = Data(try json.map { try Self.body($0, keepLineBreaks: true, flag: "--json") }.joined())
            if self.method == nil { prepared.method = "POST" }
            if prepared.headers["Content-Type"] == nil { prepared.headers.add("Content-Type", "application/json") }
            if prepared.headers["Accept"] == nil { prepared.headers.add("Accept", "application/json") }
        }
        if !data.isEmpty || !dataBinary.isEmpty || !dataRaw.isEmpty || !dataURLEncoded.isEmpty {
            guard takesBody else { throw CLIFailure(code: 2, message: "put sends its FILE as the body; -d is for get") }
            // By kind, each kind in the order given (curl keeps the order of the whole command line).
            var parts: [Data] = []
            for argument in data { parts.append(try Self.body(argument, keepLineBreaks: false)) }
            for argument in dataBinary { parts.append(try Self.body(argument, keepLineBreaks: true)) }
            for argument in dataRaw { parts.append(Data(argument.utf8)) }
            for argument in dataURLEncoded {
                parts.append(Data(try URLEncodedData.part(Array(argument.utf8)) { (name: [UInt8]) throws -> [UInt8] in
                    [UInt8](try Self.readAll(String(decoding: name, as: UTF8.self), flag: "--data-urlencode"))
                }))
            }
            let joined = Data(parts.joined(separator: Data("&".utf8)))
            if get {
                guard joined.allSatisfy(URLQueryText.isQueryByte) else {
                    throw CLIFailure(code: 2, message: "-G: the data is not a URL query as it stands (a space, a quote...); give it with --data-urlencode")
                }
                prepared.query = String(decoding: joined, as: UTF8.self)
            } else {
                prepared.body = joined
                if self.method == nil { prepared.method = "POST" }
                if prepared.headers["Content-Type"] == nil {
                    prepared.headers.add("Content-Type", "application/x-www-form-urlencoded")
                }
            }
        }

        if let user {
            prepared.credentials = .always(try Self.credentials(user, kind: "host", askPassword: askPassword))
        } else if netrc {
            prepared.credentials = .fromNetrc(try Netrc.load())
        }
        prepared.answeredMethods = serverAuth.answeredMethods

        for cookie in cookies {
            if cookie.contains("=") {
                prepared.cookieHeader = prepared.cookieHeader.map { $0 + "; " + cookie } ?? cookie
            } else {
                prepared.cookieFiles.append(cookie)
            }
        }
        prepared.cookieJar = cookieJar

        var configuration = SessionConfiguration.default
        if let proxy {
            if proxy.isEmpty {
                configuration.proxy = .direct
            } else {
                guard var server = ProxyServer(url: proxy) else {
                    throw CLIFailure(code: 2, message: "-x: not a proxy URL: \(Sanitized.text(proxy))")
                }
                if let proxyUser {
                    let (name, password) = try Self.credentials(proxyUser, kind: "proxy", askPassword: askPassword)
                    server.username = name
                    server.password = password
                }
                server.authenticationMethod = proxyAuth.method
                configuration.proxy = .server(server)
            }
        } else if proxyUser != nil {
            throw CLIFailure(code: 2, message: "--proxy-user needs -x; for a proxy from the environment, put the credentials in its URL (https_proxy=http://user:password@host:port)")
        }
        configuration.proxyBypass = noProxy

        if insecure {
            configuration.tlsVerificationEnabled = false
            StandardStreams.warning("-k: server certificates are not checked; anyone between here and the server can read and change this transfer")
        }
        if let caCert {
            guard ReadableFile.check(caCert) else {
                throw CLIFailure(code: 2, message: "--cacert: cannot read \(Sanitized.text(caCert)): not a readable regular file")
            }
            configuration.caFile = caCert
        }
        if http1_1 && http2 { throw CLIFailure(code: 2, message: "--http1.1 and --http2 ask for different versions; give one") }
        if http1_1 { configuration.httpVersion = .http1_1 }
        if http2 { configuration.httpVersion = .http2 }
        if let connectTimeout {
            guard connectTimeout >= 0, connectTimeout.isFinite else {
                throw CLIFailure(code: 2, message: "--connect-timeout needs a number of seconds (0: libcurl's default)")
            }
            if connectTimeout > 0 { configuration.timeoutIntervalForConnect = connectTimeout }  // 0: the default, as curl's
        }
        if let maxRedirects {
            guard maxRedirects >= -1 else { throw CLIFailure(code: 2, message: "--max-redirs needs a number of 0 or more (-1: no limit)") }
            configuration.maximumRedirects = maxRedirects == -1 ? .max : maxRedirects
        }
        prepared.configuration = configuration
        return prepared
    }

    /// -d's argument: the text itself, or @FILE / @- read whole (curl drops CR and LF from -d @FILE, not from
    /// --data-binary).
    private static func body(_ argument: String, keepLineBreaks: Bool, flag: String? = nil) throws -> Data {
        guard argument.hasPrefix("@") else { return Data(argument.utf8) }
        let name = String(argument.dropFirst())
        let bytes = try readAll(name, flag: flag ?? (keepLineBreaks ? "--data-binary" : "-d"))
        return keepLineBreaks ? bytes : Data(bytes.filter { $0 != 10 && $0 != 13 })
    }

    private static func readLines(_ name: String, flag: String) throws -> [String] {
        String(decoding: try readAll(name, flag: flag), as: UTF8.self)
            .split(whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }).map(String.init)
    }

    /// A file, or standard input for "-".
    private static func readAll(_ name: String, flag: String) throws -> Data {
        switch WholeFile.read(name) {
        case .success(let data): return data
        case .failure(let failure): throw CLIFailure(code: 2, message: "\(flag) @\(Sanitized.text(name)): \(failure.reason)")
        }
    }

    /// "user:password", or "user" and the password asked for (curl's prompt).
    private static func credentials(_ text: String, kind: String, askPassword: (String) -> String?) throws -> (String, String) {
        if let colon = text.firstIndex(of: ":") {
            return (String(text[..<colon]), String(text[text.index(after: colon)...]))
        }
        guard let password = askPassword("Enter \(kind) password for user '\(text)':") else {
            let flag = kind == "host" ? "-u" : "--proxy-user"
            throw CLIFailure(code: 2, message: "\(flag) \(Sanitized.text(text)) gives no password and there is no terminal to ask on; use \(flag) \(Sanitized.text(text)):PASSWORD")
        }
        return (text, password)
    }
}

/// What the flags asked for, read and checked: the session's configuration and how each URL's request is made.
struct PreparedRequest: Sendable {
    enum Credentials: Sendable {
        case none
        /// -u: sent to every URL given (never to a redirect's other origin: the engine drops Authorization there).
        case always((user: String, password: String))
        /// --netrc: each URL's host looked up.
        case fromNetrc(Netrc)
    }

    var method: String
    var headers = HTTPHeaders()
    var body: Data?
    /// -G: the data, appended to each URL's query.
    var query: String?
    var credentials = Credentials.none
    /// -b 'name=value': sent as given, like a -H 'Cookie: ...'.
    var cookieHeader: String?
    /// -b FILE (read into the session's cookie store before the first request) and -c FILE (the store written
    /// there at the end, as curl's cookie jar).
    var cookieFiles: [String] = []
    var cookieJar: String?
    /// The session's cookies: what -b FILE gave, then what the responses set.
    let cookieStore = CookieStorage()
    /// --digest and --anyauth: the challenges the credentials answer (nil: Basic, sent with the first request).
    var answeredMethods: [AuthenticationMethod]?
    /// Where those answers are found: each URL's origin is entered by `request(for:)`, so that a redirect to
    /// another origin finds nothing (curl sends -u's credentials only to the host it was given).
    let credentialStore = CredentialStorage()
    var configuration = SessionConfiguration.default
    /// The config file's `[hosts."..."]` rules, under the flags above.
    var hostRules = HostRulesApplied()

    init(method: String) { self.method = method }

    /// Whether making a request also enters credentials in the session's store (--digest, --anyauth): then a
    /// list's requests are made before the first transfer, so that a redirect to a host later in the list finds its
    /// credential whatever the timing (as they all were before requests were made as their transfers start).
    var entersCredentials: Bool {
        guard answeredMethods != nil else { return false }
        if case .none = credentials { return hostRules.config.hosts.contains { $0.netrc?.value == true } }
        return true
    }

    /// The request for one URL: the method, headers and body the flags gave, credentials for its host.
    func request(for url: URL) -> Request {
        var fields = headers
        hostRules.addHeaders(for: url, to: &fields, given: headers)
        if fields["Authorization"] == nil, let (user, password) = credentials(for: url) ?? hostRules.netrcCredentials(for: url) {
            if let answeredMethods {
                // --digest, --anyauth: nothing goes with the request; default handling of the 401 finds them.
                credentialStore.enter(Credential(user: user, password: password), for: url, answering: answeredMethods)
            } else {
                // Basic, sent with the first request as curl does without --digest or --anyauth.
                fields.add("Authorization", "Basic " + Data("\(user):\(password)".utf8).base64EncodedString())
            }
        }
        if let cookieHeader, fields["Cookie"] == nil { fields.add("Cookie", cookieHeader) }
        return Request(url: query.map { Self.url(url, appending: $0) } ?? url, method: method, headers: fields, body: body)
    }

    /// `url` with -G's data after its query (`?` or `&`, as curl), before its fragment (which libcurl never sends).
    static func url(_ url: URL, appending query: String) -> URL {
        URL(string: URLQueryText.appending(query, to: url.absoluteString)) ?? url  // the data was checked to be query bytes
    }

    /// The session's configuration; `base` carries what the command itself sets (timeouts, directories).
    func configure(_ base: SessionConfiguration) throws -> SessionConfiguration {
        var result = base
        result.proxy = configuration.proxy
        result.proxyBypass = configuration.proxyBypass
        result.tlsVerificationEnabled = configuration.tlsVerificationEnabled
        result.caFile = configuration.caFile
        result.httpVersion = configuration.httpVersion
        result.timeoutIntervalForConnect = configuration.timeoutIntervalForConnect
        result.maximumRedirects = configuration.maximumRedirects
        result.credentialStorage = credentialStore
        for file in cookieFiles {  // a missing file is no cookies, as for curl's -b FILE
            do throws(TransferError) { try cookieStore.load(from: file) } catch {
                throw CLIFailure(code: 1, message: "cannot read the cookie file \(Sanitized.text(file))")
            }
        }
        result.httpCookieStorage = cookieStore
        return result
    }

    /// Writes the cookie jar (-c FILE), if one was asked for; a failure is said on stderr, as curl does.
    func saveCookieJar() {
        guard let cookieJar else { return }
        // `-c -`: the jar on standard output, as curl writes it (a file named "-" was made; found by a tester).
        if cookieJar == "-" { return StandardStreams.output(cookieStore.exportNetscape()) }
        do throws(TransferError) { try cookieStore.save(to: cookieJar) } catch {
            StandardStreams.error("sluice: \(Sanitized.text(error.message))\n")
        }
    }

    private func credentials(for url: URL) -> (String, String)? {
        switch credentials {
        case .none: return nil
        case .always(let pair): return (pair.user, pair.password)
        case .fromNetrc(let netrc): return url.host.flatMap { netrc.credentials(for: $0) }
        }
    }

    /// -H's line: "Name: value" adds, "Name:" removes a header sluice would send (as curl).
    /// `flag`: the option the line came from, for the message (-A and -e make their header lines too).
    mutating func addHeader(_ line: String, flag: String = "-H") throws {
        guard let colon = line.firstIndex(of: ":") else {
            let hint = line.hasSuffix(";") ? " (curl's 'Name;' for an empty header is not supported)" : ""
            throw CLIFailure(code: 2, message: "-H: not a header, 'Name: value': \(Sanitized.text(line))\(hint)")
        }
        let name = String(line[..<colon])
        var value = line[line.index(after: colon)...]
        while value.first == " " || value.first == "\t" { value = value.dropFirst() }
        while value.last == " " || value.last == "\t" { value = value.dropLast() }
        guard !name.isEmpty, name.utf8.allSatisfy(HeaderSyntax.isTokenByte) else {
            throw CLIFailure(code: 2, message: "-H: not a header name: \(Sanitized.text(name))")
        }
        guard !value.utf8.contains(where: { $0 == 10 || $0 == 13 || $0 == 0 }) else {
            throw CLIFailure(code: 2, message: "\(flag) \(Sanitized.text(name)): a value cannot hold a line break")
        }
        headers.add(name, String(value))
    }
}

enum HeaderSyntax {
    /// RFC 9110's tchar: what a header name or a method may be made of.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}

extension RequestOptions {
    /// Whether a body or headers are read from standard input (`@-`; `-d` given as short data too).
    func readsStandardInput(shortData: [String]) -> Bool {
        (data + dataBinary + json + shortData).contains("@-") || headers.contains("@-")
            || dataURLEncoded.contains { $0.hasSuffix("@-") }
    }

    /// `--timeout SECONDS`, checked as the config file's `timeout` is: a number of seconds more than 0. A NaN
    /// crashed, and 0 or less silently meant "never" (found by a tester).
    static func inactivityTimeout(_ seconds: Double?) throws(CLIFailure) -> Double? {
        guard let seconds else { return nil }
        guard seconds > 0, seconds.isFinite else {
            throw CLIFailure(code: 2, message: "--timeout needs a number of seconds more than 0 (without a byte for that long, the transfer ends)")
        }
        return seconds
    }
}
