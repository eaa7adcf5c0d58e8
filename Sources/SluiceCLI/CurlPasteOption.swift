// `sluice get --curl 'CMD'`: a pasted "Copy as cURL" command used as if its flags had been typed.
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SluiceViewModel

struct CurlPasteOption: ParsableArguments {
    @Option(name: .customLong("curl"),
            parsing: .unconditional, help: ArgumentHelp("Take the URL, method, headers, cookies and body from a pasted curl command (a browser's Copy as cURL (bash)); flags typed here win over the paste's.", valueName: "command"))
    var command: String?

    /// The paste, read; the flags it has that sluice ignores are named in one warning on stderr, unless `warns` is
    /// false (the caller says it once -s, typed or pasted, is known). `typedGet`: -G was typed beside it, and takes
    /// the paste's data into the query (a POST went instead; found by a tester).
    func read(typedGet: Bool = false, warns: Bool = true) throws -> CurlPaste? {
        guard let command else { return nil }
        do throws(CurlPaste.Failure) {
            let paste = try CurlPaste.parse(command, dataInQuery: typedGet)
            if warns { Self.warn(paste) }
            return paste
        } catch {
            throw CLIFailure(code: 2, message: "--curl: \(error.message)")
        }
    }

    static func warn(_ paste: CurlPaste) {
        if let warning = paste.warning { StandardStreams.warning("--curl: \(warning)") }
    }
}

extension GetCommand {
    /// The paste's URL, request flags, -o, -g, -f, -m and retries, under what was typed.
    mutating func take(_ paste: CurlPaste) {
        var (options, given, file, globOff) = (requestOptions, urls, output, glob.off)
        paste.fold(into: &options, urls: &given, output: &file, globOff: &globOff)
        (requestOptions, urls, output, glob.off) = (options, given, file, globOff)
        let limits = paste.limits
        if !fail && !curlScript.failWithBody { fail = limits.fail }
        if maxTime == nil { maxTime = limits.maxTime }
        limits.fold(into: &retryOptions)
    }
}

extension CurlPaste.Limits {
    /// The paste's --retry family under the typed one: a typed value wins, a typed switch stays on.
    func fold(into options: inout RetryOptions) {
        if options.retry == nil { options.retry = retries }
        if options.retryDelay == nil { options.retryDelay = retryDelay }
        if options.retryMaxTime == nil { options.retryMaxTime = retryMaxTime }
        if retryConnectionRefused { options.retryConnectionRefused = true }
        if retryAllErrors { options.retryAllErrors = true }
    }
}

extension CurlPaste {
    /// The paste's flags folded under the typed ones, which win: typed URLs replace the paste's, a typed -X, -u,
    /// -x, -o, --http1.1/--http2, -b, --connect-timeout or --max-redirs replaces the paste's, and a typed -H
    /// replaces the paste's headers of that name. The paste's Accept-Encoding is left out: sluice asks for (and decodes) what its libcurl decodes, and
    /// a browser's list may name one it cannot, which would leave compressed bytes in the file.
    func fold(into options: inout RequestOptions, urls: inout [String], output: inout String?, globOff: inout Bool) {
        if urls.isEmpty { urls = self.urls }
        if options.method == nil { options.method = method }
        let typedNames = Set(options.headers.compactMap { line -> String? in
            line.hasPrefix("@") ? nil : line.split(separator: ":", maxSplits: 1).first.map { $0.lowercased() }
        })
        let typedCookies = !options.cookies.isEmpty
        let pasted = headers.filter { line in
            let name = line.split(separator: ":", maxSplits: 1).first.map { $0.lowercased() } ?? ""
            return !typedNames.contains(name) && name != "accept-encoding" && !(typedCookies && name == "cookie")
        }
        options.headers = pasted + options.headers
        if !typedCookies { options.cookies = cookies }
        if options.user == nil && !options.netrc { options.user = user }
        if insecure { options.insecure = true }
        if !options.http1_1 && !options.http2 {
            options.http1_1 = httpVersion == .http1_1
            options.http2 = httpVersion == .http2
        }
        if options.proxy == nil { options.proxy = proxy }
        if options.connectTimeout == nil { options.connectTimeout = limits.connectTimeout }
        if options.maxRedirects == nil { options.maxRedirects = limits.maxRedirects }
        if output == nil { output = self.output }
        if self.globOff { globOff = true }
    }

    /// The paste's body, when nothing typed gave one: POST unless a method was given, and form-encoded unless a
    /// header says otherwise, as curl's -d.
    func fillBody(_ prepared: inout PreparedRequest, methodGiven: Bool) {
        guard let body, prepared.body == nil else { return }
        prepared.body = Data(body)
        if !methodGiven { prepared.method = "POST" }
        if prepared.headers["Content-Type"] == nil {
            prepared.headers.add("Content-Type", "application/x-www-form-urlencoded")
        }
    }
}
