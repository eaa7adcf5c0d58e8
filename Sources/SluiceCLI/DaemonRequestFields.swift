// What `sluice add` and `sluice --background` send the daemon of curl's request flags: each URL's method, headers
// and body as the flags make them. Flags that set up a whole session (proxy, TLS trust, HTTP version, a cookie
// file, Digest) cannot be given to one task of the daemon's shared session: they are refused, saying so.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SluiceEngine
import SluiceViewModel

struct DaemonRequestFields {
    private let prepared: PreparedRequest

    /// Checks the flags (reading what they name, asking a password) once for every URL.
    /// `paste`: a pasted curl command already folded into `options`; its body is added here (as `get --curl`).
    /// `hostRules`: the config file's headers for each host, which go with each task.
    init(_ options: RequestOptions, shortData: [String] = [], paste: CurlPaste? = nil,
         hostRules: HostRulesApplied = HostRulesApplied()) throws {
        let sessionWide: [(Bool, String)] = [
            (options.proxy != nil || options.proxyUser != nil || options.noProxy != nil, "-x, --proxy-user and --noproxy"),
            (options.insecure, "-k"), (options.caCert != nil, "--cacert"), (options.http1_1 || options.http2, "--http1.1 and --http2"),
            (options.serverAuth.answeredMethods != nil, "--digest and --anyauth"),
            (options.cookies.contains { !$0.contains("=") } || options.cookieJar != nil, "-b FILE and -c"),
            (options.connectTimeout != nil || options.maxRedirects != nil, "--connect-timeout and --max-redirs"),
        ]
        if let (_, flags) = sessionWide.first(where: { $0.0 }) {
            throw CLIFailure(code: 2, message: "\(flags) set up a whole session, and the daemon's is shared by all its tasks: "
                + "use sluice get or sluice URL... for this transfer (-H, -X, -d, -u, --netrc and -b 'name=value' work here)")
        }
        if options.get {
            throw CLIFailure(code: 2, message: "-G: the daemon is given each URL as it is; put the query in the URL itself")
        }
        var prepared = try options.prepare(shortData: shortData)
        paste?.fillBody(&prepared, methodGiven: options.method != nil)
        prepared.hostRules = hostRules  // the config file's host headers go with each task
        self.prepared = prepared
    }

    /// The JSON fields for `url` (none for a plain GET).
    func fields(for url: URL) -> [(String, String)] {
        let request = prepared.request(for: url)
        var fields: [(String, String)] = []
        if request.method != "GET" { fields.append(("method", JSONText.quote(request.method))) }
        if !request.headers.isEmpty {
            let pairs = request.headers.fields.map { "[" + JSONText.quote($0.name) + "," + JSONText.quote($0.value) + "]" }
            fields.append(("headers", "[" + pairs.joined(separator: ",") + "]"))
        }
        if let body = request.body { fields.append(("body", JSONText.quote(body.base64EncodedString()))) }
        return fields
    }
}
