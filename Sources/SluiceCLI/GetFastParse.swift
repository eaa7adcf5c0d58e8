// `sluice get`'s arguments read by hand when every one of them is plain, without ArgumentParser's reflection.
import ArgumentParser

enum GetFastParse {
    /// `get ...` as a GetCommand, or nil to go the long way (DirectParse, then the whole tree).
    ///
    /// ArgumentParser's parse of `get` alone was 21 M instructions of a 123 M run fetching 200 small files
    /// (docs/performance.md): it builds its argument set by reflecting on the command and its option groups, and
    /// each property-wrapper type costs a scan of every protocol conformance in the binary. This reads only the
    /// plain shapes: `--name value`, `-x value`, flags, and URLs that do not start with `-`. Anything else (`--`,
    /// `--name=value`, `-abc`, a value starting with `-`, an unknown name, a single-valued option given twice, a
    /// value that does not convert, a failed validation, help) returns nil, so ArgumentParser answers it and what
    /// it prints is unchanged. GetFastParseTests compares both parses over many argument lists.
    static func command(_ arguments: [String]) -> GetCommand? {
        guard arguments.first == GetCommand.configuration.commandName else { return nil }
        var scan = Scan()
        guard FastParse.walk(arguments.dropFirst(), url: { scan.urls.append($0) }, flag: { (flag: Flag) in scan.set(flag) },
                             option: { (option: Option, value) in scan.set(option, value) }) else { return nil }
        return scan.command()
    }

    /// The flags `get` takes, by every name ArgumentParser gives them.
    private enum Flag: String {
        case force = "--force", trace = "--trace", harBodies = "--har-bodies", netrc = "--netrc"
        case insecure = "--insecure", k = "-k", http1_1 = "--http1.1", http2 = "--http2"
        case location = "--location", L = "-L", compressed = "--compressed"
        case silent = "--silent", s = "-s", showError = "--show-error", S = "-S", fail = "--fail", f = "-f"
        case remoteName = "--remote-name", O = "-O", remoteHeaderName = "--remote-header-name", J = "-J"
        case head = "--head", I = "-I", verbose = "--verbose", v = "-v"
        case basic = "--basic", digest = "--digest", anyauth = "--anyauth"
        case proxyBasic = "--proxy-basic", proxyDigest = "--proxy-digest", proxyAnyauth = "--proxy-anyauth"
    }

    /// The options with a value, by every name ArgumentParser gives them.
    private enum Option: String {
        case i = "-i", j = "-j", outputDir = "--output-dir", o = "-o", output = "--output"
        case disposition = "--disposition", timeout = "--timeout", mermaid = "--mermaid", har = "--har"
        case retry = "--retry"
        case retryMaxTime = "--retry-max-time", limitRate = "--limit-rate", split = "--split", mirrors = "--mirrors"
        case checksum = "--checksum", H = "-H", header = "--header", X = "-X", request = "--request"
        case method = "--method"
        case data = "--data", dataBinary = "--data-binary", u = "-u", user = "--user", b = "-b", cookie = "--cookie"
        case c = "-c", cookieJar = "--cookie-jar", x = "-x", proxy = "--proxy", U = "-U", proxyUser = "--proxy-user"
        case noProxy = "--noproxy", caCert = "--cacert", d = "-d"
        case A = "-A", userAgent = "--user-agent", e = "-e", referer = "--referer", m = "-m", maxTime = "--max-time"
        case r = "-r", range = "--range", w = "-w", writeOut = "--write-out", connectTimeout = "--connect-timeout"
        case C = "-C", continueAt = "--continue-at"
    }

    /// What the arguments said so far; nil and empty mean not given (the defaults are GetCommand's).
    private struct Scan {
        var urls: [String] = []
        var inputFile: String?, jobs: Int?, outputDir: String?, disposition: DispositionOption?
        var timeout: Double?, maxTime: Double?, range: String?, mermaid: String?, har: String?, retry: Int?, retryMaxTime: Double?, limitRate: String?
        var split: Int?, checksum: ChecksumOption?, method: String?, user: String?, cookieJar: String?
        var proxy: String?, proxyUser: String?, noProxy: String?, caCert: String?, userAgent: String?, referer: String?
        var writeOut: String?, connectTimeout: Double?, continueAt: String?
        var mirrors: [String] = [], outputs: [String] = [], headers: [String] = [], data: [String] = [], dataBinary: [String] = []
        var cookies: [String] = [], shortData: [String] = []
        var force = false, trace = false, harBodies = false, netrc = false, insecure = false, http1_1 = false
        var http2 = false, location = false, compressed = false
        var silent = false, showError = false, fail = false, remoteName = false, remoteHeaderName = false, head = false
        var verbose = false
        var serverAuth = ServerAuthOption.basic, proxyAuth = ProxyAuthOption.proxyBasic

        /// False for a flag given twice: ArgumentParser decides what that means.
        mutating func set(_ flag: Flag) -> Bool {
            switch flag {
            case .force: return FastParse.once(&force)
            case .trace: return FastParse.once(&trace)
            case .harBodies: return FastParse.once(&harBodies)
            case .netrc: return FastParse.once(&netrc)
            case .insecure, .k: return FastParse.once(&insecure)
            case .http1_1: return FastParse.once(&http1_1)
            case .http2: return FastParse.once(&http2)
            case .location, .L: return FastParse.once(&location)
            case .compressed: return FastParse.once(&compressed)
            case .silent, .s: return FastParse.once(&silent)
            case .showError, .S: return FastParse.once(&showError)
            case .fail, .f: return FastParse.once(&fail)
            case .remoteName, .O: return FastParse.once(&remoteName)
            case .remoteHeaderName, .J: return FastParse.once(&remoteHeaderName)
            case .head, .I: return FastParse.once(&head)
            case .verbose, .v: return FastParse.once(&verbose)
            // Declared with `exclusivity: .chooseLast`, as curl takes the last of them.
            case .basic: serverAuth = .basic
            case .digest: serverAuth = .digest
            case .anyauth: serverAuth = .anyauth
            case .proxyBasic: proxyAuth = .proxyBasic
            case .proxyDigest: proxyAuth = .proxyDigest
            case .proxyAnyauth: proxyAuth = .proxyAnyauth
            }
            return true
        }

        /// False for a single-valued option given twice or a value that does not convert.
        mutating func set(_ option: Option, _ value: String) -> Bool {
            switch option {
            case .i: return FastParse.once(&inputFile, value)
            case .j: return FastParse.once(&jobs, Int(argument: value))
            case .outputDir: return FastParse.once(&outputDir, value)
            case .o, .output:
                outputs.append(value)
                return true
            case .disposition: return FastParse.once(&disposition, DispositionOption(argument: value))
            case .timeout: return FastParse.once(&timeout, Double(argument: value))
            case .m, .maxTime: return FastParse.once(&maxTime, Double(argument: value))
            case .r, .range: return FastParse.once(&range, value)
            case .mermaid: return FastParse.once(&mermaid, value)
            case .har: return FastParse.once(&har, value)
            case .retry: return FastParse.once(&retry, Int(argument: value))
            case .retryMaxTime: return FastParse.once(&retryMaxTime, Double(argument: value))
            case .limitRate: return FastParse.once(&limitRate, value)
            case .split: return FastParse.once(&split, Int(argument: value))
            case .checksum: return FastParse.once(&checksum, ChecksumOption(argument: value))
            case .X, .request, .method: return FastParse.once(&method, value)
            case .u, .user: return FastParse.once(&user, value)
            case .c, .cookieJar: return FastParse.once(&cookieJar, value)
            case .x, .proxy: return FastParse.once(&proxy, value)
            case .U, .proxyUser: return FastParse.once(&proxyUser, value)
            case .noProxy: return FastParse.once(&noProxy, value)
            case .caCert: return FastParse.once(&caCert, value)
            case .A, .userAgent: return FastParse.once(&userAgent, value)
            case .e, .referer: return FastParse.once(&referer, value)
            case .w, .writeOut: return FastParse.once(&writeOut, value)
            case .connectTimeout: return FastParse.once(&connectTimeout, Double(argument: value))
            case .C, .continueAt: return FastParse.once(&continueAt, value)
            case .mirrors: mirrors.append(value)
            case .H, .header: headers.append(value)
            case .data: data.append(value)
            case .dataBinary: dataBinary.append(value)
            case .b, .cookie: cookies.append(value)
            case .d: shortData.append(value)
            }
            return true
        }

        /// The command with every property set: a property-wrapper left unset would stop the program when read.
        func command() -> GetCommand? {
            var flowExport = FlowExportOptions()
            flowExport.mermaid = mermaid
            flowExport.har = har
            flowExport.harBodies = harBodies
            var retryOptions = RetryOptions.unset
            retryOptions.retry = retry
            retryOptions.retryMaxTime = retryMaxTime
            retryOptions.limitRate = limitRate
            var splitOptions = SplitOptions()
            splitOptions.splitGiven = split
            splitOptions.mirrors = mirrors
            splitOptions.checksum = checksum
            var requestOptions = RequestOptions()
            requestOptions.headers = headers
            requestOptions.method = method
            requestOptions.data = data
            requestOptions.dataBinary = dataBinary
            requestOptions.user = user
            requestOptions.serverAuth = serverAuth
            requestOptions.netrc = netrc
            requestOptions.cookies = cookies
            requestOptions.cookieJar = cookieJar
            requestOptions.proxy = proxy
            requestOptions.proxyUser = proxyUser
            requestOptions.proxyAuth = proxyAuth
            requestOptions.noProxy = noProxy
            requestOptions.insecure = insecure
            requestOptions.caCert = caCert
            requestOptions.http1_1 = http1_1
            requestOptions.http2 = http2
            requestOptions.location = location
            requestOptions.userAgent = userAgent
            requestOptions.referer = referer
            requestOptions.compressed = compressed
            requestOptions.connectTimeout = connectTimeout
            requestOptions.maxRedirects = nil
            requestOptions.dataRaw = []
            requestOptions.dataURLEncoded = []
            requestOptions.get = false
            requestOptions.json = []
            var shortDataOption = ShortDataOption()
            shortDataOption.values = shortData
            // `--curl` and `-g/--globoff` are not read here (they fall back to ArgumentParser): not given.
            var curlPaste = CurlPasteOption()
            curlPaste.command = nil
            var glob = GlobOption()
            glob.off = false
            // ArgumentParser runs these after its parse; a failure is left to it, to be reported in its words.
            guard (try? flowExport.validate()) != nil, (try? splitOptions.validate()) != nil else { return nil }

            // -j and --timeout not given stay nil: their defaults come from the config file, else GetCommand's.
            var command = GetCommand()
            command.urls = urls
            command.inputFile = inputFile
            command.jobs = jobs
            command.outputDir = outputDir
            command.outputs = outputs
            command.force = force
            command.disposition = disposition ?? .allow
            command.trace = trace
            command.timeout = timeout
            command.maxTime = maxTime
            command.range = range
            command.silent = silent
            command.showError = showError
            command.fail = fail
            command.remoteName = remoteName
            command.remoteHeaderName = remoteHeaderName
            command.head = head
            command.writeOut = writeOut
            command.verbose = verbose
            command.continueAt = continueAt
            command.flowExport = flowExport
            command.retryOptions = retryOptions
            command.splitOptions = splitOptions
            command.requestOptions = requestOptions
            command.shortData = shortDataOption
            command.curlPaste = curlPaste
            command.glob = glob
            command.curlScript = CurlScriptOptions.unset
            var configFile = ConfigOption()  // `--config` is not read here either
            configFile.path = nil
            command.configFile = configFile
            return command
        }
    }
}
