// One task's request as the loop thread sees it: the easy handle and its callbacks, driving the request's
// state machine and performing the actions it returns.
import CCurl
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Lives on the loop thread only. libcurl calls back into it from `curl_multi_perform` and `curl_easy_pause`,
/// both of which run on that same thread, so nothing here needs a lock. What happens to the response (asked,
/// held, streamed, ended) is decided by `RequestStateMachine`; this class owns the bytes and the handle.
final class Transfer {
    enum Outcome: Equatable {
        case `continue`
        case finish(TransferError?)
        /// The redirect's own response is complete: follow it now, on the connection libcurl can keep.
        case follow(Request)
        /// Send the request again, with the credential the delegate gave.
        case resend
    }

    // The fields marked `@exclusivity(unchecked)` are read and written in every libcurl callback (a callback per
    // header line, per 16 KiB of body). Each access to a class's `var` otherwise costs a dynamic exclusivity check
    // (swift_beginAccess and a thread-local access set), 45 a request in the HTTP/2 small-file benchmark
    // (docs/performance.md). Only the loop thread touches them, and no method of theirs calls back into this
    // class while it runs, so no two accesses can overlap (the compiler's static diagnostics still apply).

    /// The task the bytes go to; a data task's transfer can be handed to a download task (`adopt`).
    @exclusivity(unchecked) private(set) var task: SessionTask
    private(set) var id: Int
    private(set) var easy: UnsafeMutableRawPointer?
    @exclusivity(unchecked) private var machine: RequestStateMachine

    private let url: URL
    /// The request URL as libcurl was given it; a different effective URL means a redirect was followed.
    private let urlString: String
    private let scheme: String
    @exclusivity(unchecked) private var headerParser = HeaderLineParser()
    @exclusivity(unchecked) private var splitter: MultipartSplitter?
    private var partIndex = 0
    /// Set for data: and file: URLs, which the engine reads itself instead of libcurl.
    private var local: LocalSource?
    /// The session's `wireMonitor`, when it has one (set up with the handle; loop thread only).
    private var wireMonitor: (@Sendable (Int, WireLine) -> Void)?
    private var lastActivity: UInt64
    /// Bytes came in a libcurl callback since the last timeout check, which then moves `lastActivity` to its own
    /// time instead of a clock read per header line and per body chunk (12 a request in the HTTP/2 small-file
    /// benchmark). The timeout can fire up to one check (100 ms) later than the last byte says, never earlier.
    @exclusivity(unchecked) private var receivedSinceCheck = false
    /// What the session's receive budget has counted of this transfer's bytes (RateGovernor; loop thread only).
    var budgetCounted: Int64 = 0
    /// The receive limit the engine keeps itself, when libcurl cannot (RateGovernor decides; nil otherwise).
    @exclusivity(unchecked) private var pacer: ReceivePacer?
    private let inactivityLimit: UInt64
    private let maximumRedirects: Int
    private let deadline: UInt64
    /// Body bytes gathered within one loop turn: libcurl hands over at most 16 KiB per call, and one delegate
    /// dispatch per 16 KiB costs more than the copy. Flushed when full and after every `curl_multi_perform`.
    @exclusivity(unchecked) private var pending: UnsafeMutableRawPointer?
    @exclusivity(unchecked) private var pendingCount = 0
    private let pool: BufferPool
    private let handles: EasyHandles
    /// The request body, read on demand by libcurl's read callback.
    private var upload: UploadReader?
    private var sentTotal: Int64 = 0
    private var sentReported: Int64 = 0
    private var lastSentReport: UInt64 = 0
    /// An upload stream ran dry: the producer is slow, not the network, so the inactivity timeout waits.
    private var uploadStarved = false
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    private var headerList: UnsafeMutablePointer<curl_slist>?
    /// This request carries a credential for the server or the proxy: a 401 or 407 head may be libcurl's own
    /// handshake (Digest asks first), so it is a challenge only once no further head follows it.
    private var sendsServerCredential = false
    private var sendsProxyCredential = false

    /// `scheme`: the request URL's scheme lowercased, when the loop has read it already.
    init(task: SessionTask, configuration: SessionConfiguration, pool: BufferPool, handles: EasyHandles,
         scheme knownScheme: String? = nil) throws(TransferError) {
        self.task = task
        id = task.taskIdentifier
        let request = task.currentRequest
        url = request.url
        urlString = request.url.absoluteString
        scheme = knownScheme ?? request.url.scheme?.lowercased() ?? ""
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let now = uptimeNow()
        lastActivity = now
        inactivityLimit = Self.nanoseconds(request.timeoutInterval ?? configuration.timeoutIntervalForRequest)
        maximumRedirects = configuration.maximumRedirects
        if task.startedAt == 0 { task.startedAt = now }  // a redirect's new transfer keeps the task's deadline
        deadline = task.startedAt &+ Self.nanoseconds(configuration.timeoutIntervalForResource)
        self.pool = pool
        self.handles = handles
        machine = RequestStateMachine(isLocal: LocalSource.reads(scheme: scheme))
        switch scheme {
        case "data", "file":
            local = try LocalSource.open(request.url, pool: pool)
        case "http", "https":
            guard let host = request.url.host(percentEncoded: true), !host.isEmpty else {  // no decoded copy
                throw TransferError(.badURL, "no host in \(url.absoluteString)", failingURL: url)
            }
            try configureEasy(request, configuration)
        default:
            throw TransferError(.unsupportedURL, "unsupported URL scheme \"\(scheme)\"", failingURL: url)
        }
    }

    deinit {
        close()
        discardPending()
        errorBuffer.deallocate()
    }

    /// libcurl's debug callback (only with a `wireMonitor`): its notes and the heads sent and received, line by
    /// line; body bytes and TLS records are not lines for a person.
    func tellWire(_ type: curl_infotype, _ bytes: UnsafeRawBufferPointer) {
        guard let wireMonitor else { return }
        let kind: WireLine.Kind
        switch type {
        case CURLINFO_TEXT: kind = .info
        case CURLINFO_HEADER_OUT: kind = .headerOut
        case CURLINFO_HEADER_IN: kind = .headerIn
        default: return
        }
        for line in WireLine.lines(kind, bytes) { wireMonitor(task.taskIdentifier, line) }
    }

    static func owner(of easy: UnsafeMutableRawPointer) -> Transfer? {
        var pointer: UnsafeMutablePointer<CChar>?
        guard sluice_easy_getinfo_string(easy, CURLINFO_PRIVATE, &pointer) == CURLE_OK, let pointer else { return nil }
        return Unmanaged<Transfer>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
    }

    /// Frees the easy handle; the loop has already removed it from the multi handle.
    func close() {
        upload?.close(TransferError(.cancelled, "the upload task has ended", failingURL: url))
        upload = nil
        if let easy { handles.give(easy) }
        easy = nil
        if let headerList { curl_slist_free_all(headerList) }
        headerList = nil
    }

    // MARK: Setup

    private func configureEasy(_ request: Request, _ configuration: SessionConfiguration) throws(TransferError) {
        guard let easy = handles.take() else {
            throw TransferError(.unknown, "libcurl could not create a transfer", failingURL: url)
        }
        self.easy = easy
        let me = Unmanaged.passUnretained(self).toOpaque()
        var failed: CURLcode = CURLE_OK
        func set(_ code: CURLcode) { if failed == CURLE_OK && code != CURLE_OK { failed = code } }
        func setLong(_ option: CURLoption, _ value: Int) { set(sluice_easy_setopt_long(easy, option, value)) }
        func setString(_ option: CURLoption, _ value: String) {
            set(value.withCString { sluice_easy_setopt_string(easy, option, $0) })  // libcurl copies strings
        }

        setString(CURLOPT_URL, urlString)
        set(sluice_easy_setopt_pointer(easy, CURLOPT_PRIVATE, me))
        set(sluice_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer))
        set(sluice_easy_setopt_write(easy, CURLOPT_WRITEFUNCTION, transferWriteCallback))
        set(sluice_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, me))
        set(sluice_easy_setopt_write(easy, CURLOPT_HEADERFUNCTION, transferHeaderCallback))
        if let monitor = configuration.wireMonitor {
            wireMonitor = monitor
            setLong(CURLOPT_VERBOSE, 1)
            set(sluice_easy_setopt_debug(easy, CURLOPT_DEBUGFUNCTION, transferDebugCallback))
            set(sluice_easy_setopt_pointer(easy, CURLOPT_DEBUGDATA, me))
        }
        set(sluice_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, me))
        setLong(CURLOPT_NOSIGNAL, 1)
        setString(CURLOPT_PROTOCOLS_STR, "http,https")  // redirects are followed by the loop, not libcurl
        // A reused handle may still hold its receive buffer (libcurl 7.88 keeps it after a multiplexed HTTP/2
        // transfer) and then refuses any size, which failed every later task; that handle reads with libcurl's
        // default size instead.
        let sized = sluice_easy_setopt_long(easy, CURLOPT_BUFFERSIZE, configuration.receiveBufferSize)
        if sized != CURLE_BAD_FUNCTION_ARGUMENT { set(sized) }
        if task is DownloadTask {
            // A download keeps the bytes as sent, as curl -o and wget do: a .tar.gz a server labels Content-Encoding
            // gzip stays the .tar.gz, and a resume's Range counts the bytes the partial file holds (decoded bytes
            // made every resume of such a download fail and lose its file). Nothing is asked for compressed.
            setLong(CURLOPT_HTTP_CONTENT_DECODING, 0)
        } else {
            setString(CURLOPT_ACCEPT_ENCODING, "")  // every encoding this libcurl decodes
        }
        // libcurl's own field, as curl sets it: a header field of the request replaces it, an empty one removes it,
        // and a proxy's CONNECT carries it too.
        if let userAgent = configuration.userAgent { setString(CURLOPT_USERAGENT, userAgent) }
        setLong(CURLOPT_SSL_VERIFYPEER, configuration.tlsVerificationEnabled ? 1 : 0)
        setLong(CURLOPT_SSL_VERIFYHOST, configuration.tlsVerificationEnabled ? 2 : 0)
        if let caFile = configuration.caFile { setString(CURLOPT_CAINFO, caFile) }
        let connectTimeout = configuration.timeoutIntervalForConnect ?? request.timeoutInterval ?? configuration.timeoutIntervalForRequest
        // Not a positive number (a library caller's NaN, say): libcurl's own default, 0, rather than a crash.
        setLong(CURLOPT_CONNECTTIMEOUT_MS, connectTimeout.isFinite && connectTimeout > 0 ? Int(min(connectTimeout, 1e9) * 1000) : 0)
        setLong(CURLOPT_STREAM_WEIGHT, max(1, Int(task.priority * 255) + 1))
        switch configuration.httpVersion {
        case .automatic: setLong(CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS)
        case .http1_1: setLong(CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1)
        case .http2: setLong(CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2_0)
        case .http2PriorKnowledge: setLong(CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE)
        }
        // libcurl before 8.0 breaks a cleartext prior-knowledge connection when it reuses it ("Error in the HTTP2
        // framing layer", curl issue 10634): there, each such request gets a connection of its own. Elsewhere a
        // request waits for a connection being opened to its host, which may carry it as one more HTTP/2 stream,
        // rather than open another; only where HTTP/2 is possible, because over cleartext HTTP/1.1 the wait would
        // last until the first response's status line told libcurl there is no multiplexing.
        let priorKnowledgeReuseBroken = configuration.httpVersion == .http2PriorKnowledge && scheme == "http"
            && (curl_version_info(CURLVERSION_FIRST)?.pointee.version_num ?? 0) < 0x08_00_00
        if priorKnowledgeReuseBroken {
            setLong(CURLOPT_FORBID_REUSE, 1)
            setLong(CURLOPT_FRESH_CONNECT, 1)
        } else if configuration.multiplexingEnabled, scheme == "https" || configuration.httpVersion == .http2PriorKnowledge {
            setLong(CURLOPT_PIPEWAIT, 1)
        }
        switch configuration.proxy {
        case .environment: break  // libcurl reads http_proxy, HTTPS_PROXY, ALL_PROXY and NO_PROXY itself
        case .direct: setString(CURLOPT_PROXY, "")  // "" means none, whatever the environment says
        case .server(let proxy):
            setString(CURLOPT_PROXY, proxy.curlURL)
            if let username = proxy.username {
                setString(CURLOPT_PROXYUSERNAME, username)
                setString(CURLOPT_PROXYPASSWORD, proxy.password ?? "")
                setLong(CURLOPT_PROXYAUTH, Self.curlAuth(proxy.authenticationMethod))
                sendsProxyCredential = true  // a 407 may be libcurl's own handshake (Digest asks first)
            }
        }
        if let bypass = configuration.proxyBypass { setString(CURLOPT_NOPROXY, bypass) }
        // A tunnel's "200 Connection established" is the proxy's, not the server's response.
        setLong(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1)

        let method = request.method.uppercased()
        let uploadBody = task.sendsBody ? (task as? UploadTask)?.body : nil
        let body = uploadBody ?? request.body.map { UploadBody.data($0) }
        if method == "HEAD" {
            setLong(CURLOPT_NOBODY, 1)
        } else if let body {
            let reader = try UploadReader(body, url: url)
            upload = reader
            set(sluice_easy_setopt_read(easy, CURLOPT_READFUNCTION, transferReadCallback))
            set(sluice_easy_setopt_pointer(easy, CURLOPT_READDATA, me))
            set(sluice_easy_setopt_seek(easy, CURLOPT_SEEKFUNCTION, transferSeekCallback))
            set(sluice_easy_setopt_pointer(easy, CURLOPT_SEEKDATA, me))
            let length = curl_off_t(reader.length ?? -1)  // -1: sent chunked
            if method == "POST" {
                setLong(CURLOPT_POST, 1)
                set(sluice_easy_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, length))
            } else {
                setLong(CURLOPT_UPLOAD, 1)
                set(sluice_easy_setopt_off(easy, CURLOPT_INFILESIZE_LARGE, length))
                if method != "PUT" { setString(CURLOPT_CUSTOMREQUEST, method) }
            }
        } else if method != "GET" {
            setString(CURLOPT_CUSTOMREQUEST, method)
        }

        if let (credential, space) = task.serverCredential, space.covers(request.url) {
            setString(CURLOPT_USERNAME, credential.user)
            setString(CURLOPT_PASSWORD, credential.password)
            if space.authenticationMethod == .bearer { setString(CURLOPT_XOAUTH2_BEARER, credential.password) }
            setLong(CURLOPT_HTTPAUTH, Self.curlAuth(space.authenticationMethod))
            sendsServerCredential = true
        }
        if let (credential, space) = task.proxyCredential {
            setString(CURLOPT_PROXYUSERNAME, credential.user)
            setString(CURLOPT_PROXYPASSWORD, credential.password)
            setLong(CURLOPT_PROXYAUTH, Self.curlAuth(space.authenticationMethod))
            sendsProxyCredential = true
        }
        if configuration.usesNetrc { setLong(CURLOPT_NETRC, 1) }  // CURL_NETRC_OPTIONAL
        if let trusted = task.trustedServer, trusted.covers(request.url) {  // the delegate accepted its certificate
            setLong(CURLOPT_SSL_VERIFYPEER, 0)
            setLong(CURLOPT_SSL_VERIFYHOST, 0)
        }

        var fields = request.headers
        for field in configuration.httpAdditionalHeaders where fields[field.name] == nil {
            fields.add(field.name, field.value)
        }
        if configuration.httpShouldSetCookies, fields["Cookie"] == nil,
           let cookies = configuration.httpCookieStorage?.header(for: request.url) {
            fields.add("Cookie", cookies)
        }
        if fields["Expect"] == nil { fields.add("Expect", "") }  // no 1 s wait for 100-continue
        if method == "POST", upload == nil || upload?.length == 0 || upload?.isFileOrStream == true, fields["Content-Type"] == nil {
            // libcurl would name a form type for an empty POST, and for a file sent with POST (`put -X POST FILE`,
            // which curl -T sends with none): nobody asked for one.
            fields.add("Content-Type", "")
        }
        for field in fields {
            let line = field.value.isEmpty ? "\(field.name):" : "\(field.name): \(field.value)"
            headerList = curl_slist_append(headerList, line)
        }
        if let headerList { set(sluice_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, headerList)) }

        if failed != CURLE_OK {
            let code = CurlErrorMapping.code(forCurlCode: Int(failed.rawValue), message: "")
            throw TransferError(code == .unknown ? .badURL : code,
                                "cannot set up the transfer: \(CurlRuntime.message(for: failed))",
                                curlCode: Int(failed.rawValue), failingURL: url)
        }
    }

    /// libcurl's CURLAUTH_* bit for a method; anything else lets libcurl pick what the server offers.
    private static func curlAuth(_ method: AuthenticationMethod) -> Int {
        switch method {
        case .basic: 1  // CURLAUTH_BASIC
        case .digest: 2  // CURLAUTH_DIGEST
        case .bearer: 64  // CURLAUTH_BEARER
        case .other: ~16  // CURLAUTH_ANY
        case .serverTrust: 0  // not an HTTP scheme: trust changes verification instead
        }
    }

    // MARK: libcurl callbacks (loop thread)

    fileprivate func receiveHeader(_ bytes: UnsafeMutablePointer<CChar>, _ count: Int) -> Int {
        task.session.loop.assertOnLoopThread("a transfer")
        guard machine.readsHead else { return count }  // trailers after the body are not a new response
        headerParser.feed(bytes: UnsafeRawBufferPointer(start: bytes, count: count))
        receivedSinceCheck = true
        guard headerParser.isComplete, let status = headerParser.statusCode else { return count }
        if status < 200 {  // informational: told to the delegate; the next status line starts the real head
            if status != 101 { task.deliverInformational(makeResponse(headers: headerParser.fields, part: nil)) }
            return count
        }
        // Every final head sets its cookies, a redirect's too, so the next hop of the same site carries them.
        task.session.configuration.httpCookieStorage?.store(headerParser.fields, from: url, mainDocument: task.originalRequest.url)
        if let space = challengeSpace() {
            // With a credential of that kind on board, libcurl may answer this head itself (Digest's first round):
            // the challenge is the delegate's only once the body or the end shows it is final.
            if space.isProxy ? sendsProxyCredential : sendsServerCredential { return count }
            return challengeArrived(space, count)
        }
        guard Redirection.redirects(status), let location = redirectTarget() else { return headArrived(count) }
        if task.redirectCount >= maximumRedirects {  // no question whose answer could not be followed
            let error = TransferError(.tooManyRedirects, "more than \(maximumRedirects) redirects", failingURL: url)
            return inCallback(machine.fail(error), count)
        }
        // Asked now, at the head, as URLSession asks; the redirect's own body is gathered meanwhile and reaches
        // the delegate only if the redirect is refused.
        let next = Redirection.request(after: task.currentRequest, status: status, location: location)
        let action = machine.redirectHeadArrived()
        guard case .askRedirect = action else { return inCallback(action, count) }
        task.deliverRedirect(makeResponse(headers: headerParser.fields, part: nil), to: next)
        return count
    }

    /// The protection space of a 401 with WWW-Authenticate or a 407 with Proxy-Authenticate; nil otherwise.
    private func challengeSpace() -> ProtectionSpace? {
        guard let status = headerParser.statusCode, status == 401 || status == 407 else { return nil }
        let isProxy = status == 407
        let field = isProxy ? "Proxy-Authenticate" : "WWW-Authenticate"
        let values = headerParser.fields.fields.filter { $0.name.caseInsensitiveEquals(field) }.map(\.value)
        guard let (method, realm) = AuthenticateHeader.strongest(values) else { return nil }
        if isProxy {  // the peer libcurl is connected to is the proxy
            var address: UnsafeMutablePointer<CChar>?
            var port = 0
            var host = ""
            if let easy {
                if sluice_easy_getinfo_string(easy, CURLINFO_PRIMARY_IP, &address) == CURLE_OK, let address {
                    host = String(cString: address)
                }
                _ = sluice_easy_getinfo_long(easy, CURLINFO_PRIMARY_PORT, &port)
            }
            return ProtectionSpace(host: host, port: port, protocol: "http", realm: realm, authenticationMethod: method,
                                   isProxy: true)
        }
        let scheme = url.scheme?.lowercased() ?? "http"
        return ProtectionSpace(host: url.host ?? "", port: url.port ?? ProtectionSpace.defaultPort(scheme), protocol: scheme,
                               realm: realm, authenticationMethod: method)
    }

    /// A challenge the delegate answers: asked now; the body is gathered meanwhile, kept from the task.
    private func challengeArrived(_ space: ProtectionSpace, _ count: Int) -> Int {
        let action = machine.challengeHeadArrived()
        guard case .askChallenge = action else { return inCallback(action, count) }
        let refused = task.refusedCredentials[space] ?? 0
        let current = space.isProxy ? task.proxyCredential : task.serverCredential
        let proposed = refused > 0 && current?.space == space ? current?.credential
            : task.session.configuration.credentialStorage?.credential(for: space)
        task.deliverChallenge(AuthenticationChallenge(
            protectionSpace: space, previousFailureCount: refused, proposedCredential: proposed,
            failureResponse: makeResponse(headers: headerParser.fields, part: nil), error: nil))
        return count
    }

    /// The server's certificate did not verify before any head came: the delegate may trust it.
    private func askToTrust(_ error: TransferError) -> Outcome {
        let scheme = url.scheme?.lowercased() ?? "https"
        let space = ProtectionSpace(host: url.host ?? "", port: url.port ?? ProtectionSpace.defaultPort(scheme),
                                    protocol: scheme, realm: nil, authenticationMethod: .serverTrust)
        let action = machine.untrustedServer(error)
        guard case .askChallenge = action else { return perform(action) }
        task.deliverChallenge(AuthenticationChallenge(protectionSpace: space, previousFailureCount: 0,
                                                      proposedCredential: nil, failureResponse: nil, error: error))
        return .continue
    }

    /// The proxy's protection space when it refused the tunnel with a 407; nil for any other failure.
    private func refusedTunnelSpace() -> ProtectionSpace? {
        guard let easy else { return nil }
        var connectCode = 0
        var offered = 0
        var port = 0
        var address: UnsafeMutablePointer<CChar>?
        guard sluice_easy_getinfo_long(easy, CURLINFO_HTTP_CONNECTCODE, &connectCode) == CURLE_OK, connectCode == 407,
              sluice_easy_getinfo_long(easy, CURLINFO_PROXYAUTH_AVAIL, &offered) == CURLE_OK,
              sluice_easy_getinfo_string(easy, CURLINFO_PRIMARY_IP, &address) == CURLE_OK, let address else { return nil }
        _ = sluice_easy_getinfo_long(easy, CURLINFO_PRIMARY_PORT, &port)
        return TunnelChallenge.space(connectCode: connectCode, offered: offered, address: String(cString: address), port: port)
    }

    /// The proxy refused the tunnel: the delegate may give a credential for it (the request is then sent again).
    private func askForTunnel(_ space: ProtectionSpace, _ error: TransferError) -> Outcome {
        if let sent = task.proxyCredential { task.refusedCredentials[sent.space, default: 0] += 1 }
        let refused = task.refusedCredentials[space] ?? 0
        let action = machine.tunnelRefused(error)
        guard case .askChallenge = action else { return perform(action) }
        let proposed = refused > 0 && task.proxyCredential?.space == space ? task.proxyCredential?.credential
            : task.session.configuration.credentialStorage?.credential(for: space)
        task.deliverChallenge(AuthenticationChallenge(protectionSpace: space, previousFailureCount: refused,
                                                      proposedCredential: proposed, failureResponse: nil, error: error))
        return .continue
    }

    /// The head still waiting to be judged is a final challenge (a credential was refused): ask the delegate.
    private func askIfRefused() {
        guard machine.readsHead, headerParser.isComplete, let space = challengeSpace() else { return }
        if let sent = space.isProxy ? task.proxyCredential : task.serverCredential {
            task.refusedCredentials[sent.space, default: 0] += 1
        }
        _ = challengeArrived(space, 0)
    }

    /// The final head: the response goes to the task, or a multipart stream's splitter is set up.
    private func headArrived(_ count: Int) -> Int {
        let boundary = task is DownloadTask ? nil : multipartBoundary()
        switch machine.headArrived(isMultipart: boundary != nil) {
        case .deliverResponse:
            if let problem = deliverHeadResponse() { return inCallback(machine.fail(problem), count) }
            return count
        case .none:
            if let boundary, machine.multipart { splitter = MultipartSplitter(boundary: boundary) }
            return count
        case let action:
            return inCallback(action, count)
        }
    }

    /// The Location resolved against this request's URL, or nil when there is none that parses. (libcurl's
    /// CURLINFO_REDIRECT_URL is only known once the whole redirect response has been read.)
    private func redirectTarget() -> URL? {
        headerParser.fields["Location"].flatMap { Redirection.target(location: $0, from: url) }
    }

    /// Longer redirect bodies are cut off: a new connection costs less than reading them.
    private static let awaitedRedirectBody = 64 << 10

    fileprivate func receiveBody(_ bytes: UnsafeMutablePointer<CChar>, _ count: Int) -> Int {
        task.session.loop.assertOnLoopThread("a transfer")
        let chunk = UnsafeRawBufferPointer(start: bytes, count: count)
        askIfRefused()
        // Only the first byte of a response decides whether it is a multipart stream.
        let boundary = machine.readsHead && !(task is DownloadTask) ? multipartBoundary() : nil
        if pacer != nil, !machine.rateHeld, pacer?.mayReceive(now: uptimeNow()) == false {
            let action = machine.holdForRate()
            if action != .none { return inCallback(action, count) }
        }
        while true {
            switch machine.bodyArrived(fits: pendingCount + count <= pool.size, isMultipart: boundary != nil) {
            case .gather:
                receivedSinceCheck = true
                pacer?.take(count)
                gather(chunk)
                return count
            case .feedParts:
                receivedSinceCheck = true
                pacer?.take(count)
                if splitter == nil, let boundary { splitter = MultipartSplitter(boundary: boundary) }
                splitter?.feed(chunk)
                pumpParts()
                return machine.refusesBody ? 0 : count
            case .deliverResponse:
                // Then the bytes are offered again: while the answer is awaited they gather undelivered, and only
                // a full buffer pauses libcurl, so a small response needs no pause and unpause at all.
                receivedSinceCheck = true
                if let problem = deliverHeadResponse() { return inCallback(machine.fail(problem), count) }
            case let action:
                return inCallback(action, count)
            }
        }
    }

    /// What a write or header callback returns for an action that needs nothing more of the driver.
    private func inCallback(_ action: RequestStateMachine.Action, _ count: Int) -> Int {
        switch action {
        case .none, .gather: return count
        case .pauseReceiving: return sluice_writefunc_pause()
        case .refuse: return 0
        case .internalError(let message):
            assertionFailure(message)
            return 0  // the machine now fails the transfer with the internal error
        default:
            assertionFailure("\(action) cannot be performed inside a libcurl callback")
            return 0
        }
    }

    fileprivate func readBody(_ buffer: UnsafeMutablePointer<CChar>, _ count: Int) -> Int {
        task.session.loop.assertOnLoopThread("a transfer")
        guard let upload else { return 0 }
        lastActivity = uptimeNow()
        // After a conversion re-keys this transfer, `adopt` unpauses it, libcurl reads again, and the next wake
        // carries the new identifier; a wake made before that finds nothing and is dropped.
        let wake: @Sendable () -> Void = { [loop = task.session.loop, id] in loop.send(.uploadReady(id)) }
        switch upload.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: count), wake: wake) {
        case .bytes(let n):
            uploadStarved = false
            sentTotal += Int64(n)
            reportSent(final: sentTotal == upload.length)  // libcurl does not ask again once the length is sent
            return n
        case .end:
            reportSent(final: true)
            return 0
        case .pause:
            uploadStarved = true
            reportSent(final: true)
            return sluice_readfunc_pause()
        case .failure(let error):
            _ = machine.fail(TransferError(error.code, error.message, failingURL: url))
            return sluice_readfunc_abort()
        }
    }

    fileprivate func rewindBody() -> Bool {
        guard let upload, upload.rewind() else { return false }
        sentTotal = 0
        sentReported = 0
        return true
    }

    /// At most about ten `didSendBodyData` calls a second, and one whenever the body ends or waits.
    private func reportSent(final: Bool) {
        guard sentTotal != sentReported else { return }  // before the clock: most requests send no body
        let now = uptimeNow()
        guard final || now &- lastSentReport >= 100_000_000 else { return }
        task.deliverSent(bytes: sentTotal - sentReported, total: sentTotal)
        sentReported = sentTotal
        lastSentReport = now
    }

    private func gather(_ chunk: UnsafeRawBufferPointer) {
        if pendingCount + chunk.count > pool.size { flushPending() }
        guard chunk.count <= pool.size, let base = chunk.baseAddress else {
            if task.deliverData(Data(chunk)) { machine.holdForBackpressure() }
            return
        }
        let buffer = pending ?? pool.take()
        pending = buffer
        (buffer + pendingCount).copyMemory(from: base, byteCount: chunk.count)
        pendingCount += chunk.count
        if pendingCount == pool.size { flushPending() }
    }

    /// Hands the gathered bytes to the task as one Data that owns the buffer (no second copy), never before the
    /// response has been answered.
    func flushPending() {
        guard let buffer = pending, pendingCount > 0, machine.mayFlush else { return }
        let data = pool.data(buffer, count: pendingCount)
        pending = nil
        pendingCount = 0
        if task.deliverData(data) { machine.holdForBackpressure() }
    }

    private func discardPending() {
        if let pending { pool.give(pending) }
        pending = nil
        pendingCount = 0
    }

    // MARK: Loop events

    func suspend() -> Outcome {
        flushPending()  // what was gathered before the suspension is the task's; the gate parks it
        return perform(machine.suspend())
    }

    func resume() -> Outcome {
        lastActivity = uptimeNow()
        return perform(machine.resume())
    }

    /// The consumer has drained what it was given.
    func drained() -> Outcome {
        lastActivity = uptimeNow()
        return perform(machine.drained())
    }

    /// The delegate allowed the response.
    func allow() -> Outcome {
        lastActivity = uptimeNow()
        return perform(machine.answerAllowed())
    }

    /// The delegate answered the redirect: follow `request` (now, or when the redirect's short body has ended),
    /// or, for nil, take the redirect response and its body as the task's response.
    func redirectAnswered(_ request: Request?) -> Outcome {
        let length = headerParser.fields["Content-Length"].flatMap { Int($0) }
        return perform(machine.redirectAnswered(request, shortBody: length.map { $0 <= Self.awaitedRedirectBody } ?? false))
    }

    /// The delegate answered the challenge: send the request again (the loop has stored the credential), or
    /// take the 401 or 407 and its body as the task's response.
    func challengeAnswered(resend: Bool) -> Outcome {
        let length = headerParser.fields["Content-Length"].flatMap { Int($0) }
        return perform(machine.challengeAnswered(resend: resend, shortBody: length.map { $0 <= Self.awaitedRedirectBody } ?? false))
    }

    /// The engine keeps this transfer's receive limit from now on (`rate`), or no longer (nil): libcurl cannot. A
    /// transfer held meanwhile goes on when the loop next asks (`mayGoOn`).
    func pace(rate: Int64?, now: UInt64) {
        guard let rate else {
            pacer = nil
            return
        }
        if pacer == nil { pacer = ReceivePacer(rate: rate, now: now) } else { pacer?.change(rate: rate, now: now) }
    }

    /// Held for its receive limit.
    var isRateHeld: Bool { machine.rateHeld }

    /// Whether a transfer held for its receive limit may go on: the limit allows more bytes, or is gone.
    func mayGoOn(now: UInt64) -> Bool {
        pacer?.mayReceive(now: now) != false
    }

    /// Released from its receive-limit hold.
    func rateCaughtUp(now: UInt64) -> Outcome {
        lastActivity = now  // the wait was the limit's, not the network's
        return perform(machine.rateCaughtUp())
    }

    /// The upload stream has bytes again: let libcurl send, unless the task is suspended.
    func uploadReady() {
        guard let easy, !machine.suspended, !machine.hasEnded else { return }
        _ = curl_easy_pause(easy, machine.isHeld ? CURLPAUSE_RECV : CURLPAUSE_CONT)
    }

    /// Hands the transfer to the download task that continues `task`. Bytes the data task may have must already
    /// be flushed to it; bytes still gathered (held for the disposition) go to the download.
    func adopt(_ download: DownloadTask) -> Outcome {
        task = download
        id = download.taskIdentifier
        return perform(machine.adoptedByDownload())
    }

    /// libcurl reports the transfer done. The result may have to wait for an answer or a resume.
    func ended(_ code: CURLcode) -> Outcome {
        flushPending()
        reportSent(final: true)
        // A refused body ends with libcurl's write error; the machine knows the real reason.
        let error = code == CURLE_OK || machine.refusesBody ? nil : makeError(code)
        if let error, error.code == .serverCertificateUntrusted, machine.readsHead, !headerParser.isComplete,
           task.trustedServer == nil {
            return askToTrust(error)
        }
        if let error, machine.readsHead, !headerParser.isComplete, let space = refusedTunnelSpace() {
            return askForTunnel(space, error)
        }
        askIfRefused()
        return perform(machine.ended(error, headComplete: headerParser.isComplete))
    }

    /// The loop ended the transfer from outside (cancelled, failed, timed out): no event may follow.
    func stopped() {
        machine.finished()
    }

    /// Data: and file: URLs: the response comes at once, then `pumpLocal` reads while nothing holds.
    func startLocal() -> Outcome {
        guard let local else { return .continue }
        guard case .deliverResponse = machine.localStarted() else { return perform(.internalError("no local response")) }
        var headers = HTTPHeaders()
        if let type = local.mediaType { headers.add("Content-Type", type) }
        headers.add("Content-Length", String(local.length))
        let response = Response(url: url, statusCode: nil, headers: headers, expectedContentLength: local.length)
        if let problem = task.deliverResponse(response) { return failNow(problem) }
        return .continue
    }

    /// This request's timings and connection as libcurl measured them; nil for file: and data: URLs.
    func metrics() -> TransactionMetrics? {
        guard let easy else { return nil }
        func long(_ info: CURLINFO) -> Int? {
            var value = 0
            return sluice_easy_getinfo_long(easy, info, &value) == CURLE_OK ? value : nil
        }
        func off(_ info: CURLINFO) -> Int64 {
            var value: curl_off_t = 0
            return sluice_easy_getinfo_off(easy, info, &value) == CURLE_OK ? Int64(value) : 0
        }
        func seconds(_ info: CURLINFO) -> Double { Double(off(info)) / 1e6 }
        var address: UnsafeMutablePointer<CChar>?
        let remote = sluice_easy_getinfo_string(easy, CURLINFO_PRIMARY_IP, &address) == CURLE_OK
            ? address.map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } : nil
        let status = long(CURLINFO_RESPONSE_CODE).flatMap { $0 > 0 ? $0 : nil }
        let tls = seconds(CURLINFO_APPCONNECT_TIME_T)
        return TransactionMetrics(
            url: url, statusCode: status,
            networkProtocol: status == nil ? nil : long(CURLINFO_HTTP_VERSION).flatMap(TransactionMetrics.protocolName),
            remoteAddress: remote, remotePort: long(CURLINFO_PRIMARY_PORT).flatMap { $0 > 0 ? $0 : nil },
            isReusedConnection: remote != nil && long(CURLINFO_NUM_CONNECTS) == 0,
            domainLookupEnd: seconds(CURLINFO_NAMELOOKUP_TIME_T), connectEnd: seconds(CURLINFO_CONNECT_TIME_T),
            secureConnectionEnd: tls > 0 ? tls : nil, requestStart: seconds(CURLINFO_PRETRANSFER_TIME_T),
            responseStart: seconds(CURLINFO_STARTTRANSFER_TIME_T), total: seconds(CURLINFO_TOTAL_TIME_T),
            bodyBytesSent: off(CURLINFO_SIZE_UPLOAD_T), bodyBytesReceived: off(CURLINFO_SIZE_DOWNLOAD_T),
            headerBytesReceived: Int64(long(CURLINFO_HEADER_SIZE) ?? 0))
    }

    var isSuspended: Bool { machine.suspended }

    var isLocalFlowing: Bool { local != nil && !machine.isHeld }

    func pumpLocal() -> Outcome {
        guard let local, !machine.isHeld else { return .continue }
        do {
            guard let chunk = try local.read() else { return perform(machine.localBodyEnded()) }
            lastActivity = uptimeNow()
            if task.deliverData(chunk) { machine.holdForBackpressure() }
            return .continue
        } catch {
            return failNow(TransferError(error.code, error.message, failingURL: url))
        }
    }

    func timeoutError(now: UInt64) -> TransferError? {
        if now >= deadline {
            return TransferError(.timedOut, "the resource timeout passed before the transfer finished", failingURL: url)
        }
        if receivedSinceCheck {
            lastActivity = now
            receivedSinceCheck = false
        }
        // A held transfer waits for its consumer, not the network; one that waits for a redirect's body does not.
        // `now` may be from before this transfer began (a clock read earlier in the loop's turn): not a wait.
        guard machine.timeoutApplies, !uploadStarved, now > lastActivity, now - lastActivity > inactivityLimit else { return nil }
        let tenths = inactivityLimit / 100_000_000
        let seconds = tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)"
        return TransferError(.timedOut, "no data for \(seconds) s", failingURL: url)
    }

    // MARK: Performing the machine's actions (outside libcurl's callbacks)

    private func perform(_ action: RequestStateMachine.Action) -> Outcome {
        task.session.loop.assertOnLoopThread("a transfer")
        switch action {
        case .none, .gather, .pauseReceiving, .refuse, .feedParts, .askRedirect, .askChallenge:
            return .continue
        case .deliverResponse:
            if let problem = deliverHeadResponse() { return failNow(problem) }
            return .continue
        case .pumpParts:
            pumpParts()
            return perform(machine.flowResumed())
        case .pauseAll:
            if let easy { _ = curl_easy_pause(easy, CURLPAUSE_ALL) }
            return .continue
        case .unpause:
            if let easy { _ = curl_easy_pause(easy, CURLPAUSE_CONT) }  // may call receiveBody right here
            return .continue
        case .follow(let request):
            discardPending()  // the redirect's own body, never the task's
            return .follow(request)
        case .resend:
            discardPending()  // the challenge's own body
            return .resend
        case .finish(let error):
            if error == nil, let rest = splitter?.finish() { _ = task.deliverData(rest) }
            return .finish(error)
        case .internalError(let message):
            assertionFailure(message)
            return perform(machine.flowResumed())  // the machine now fails the transfer with the internal error
        }
    }

    /// A failure found outside a callback: the transfer ends with it (once resumed, if suspended).
    private func failNow(_ error: TransferError) -> Outcome {
        _ = machine.fail(error)
        return perform(machine.flowResumed())
    }

    /// The head's response to the task; the task's refusal when it cannot take it.
    private func deliverHeadResponse() -> TransferError? {
        task.deliverResponse(makeResponse(headers: headerParser.fields, part: nil))
    }

    private func makeResponse(headers: HTTPHeaders, part: Int?) -> Response {
        var current = url
        var expected = Int64(Response.unknownLength)
        if let easy {
            var effective: UnsafeMutablePointer<CChar>?
            // Compared as C strings: a String made of it for every response was only needed after a redirect.
            if sluice_easy_getinfo_string(easy, CURLINFO_EFFECTIVE_URL, &effective) == CURLE_OK, let effective,
               urlString.withCString({ strcmp($0, effective) }) != 0, let parsed = URL(string: String(cString: effective)) {
                current = parsed  // parsed only after a redirect
            }
            var length: curl_off_t = -1
            if part == nil, sluice_easy_getinfo_off(easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length) == CURLE_OK {
                expected = length >= 0 ? Int64(length) : Response.unknownLength
            }
        }
        if current != url { task.setCurrentURL(current) }
        if let part {
            expected = headers["Content-Length"].flatMap { Int64($0) } ?? Response.unknownLength
            return Response(url: current, statusCode: headerParser.statusCode, reasonPhrase: headerParser.reasonPhrase,
                            headers: headers, expectedContentLength: expected, part: part)
        }
        return Response(url: current, statusCode: headerParser.statusCode, reasonPhrase: headerParser.reasonPhrase,
                        headers: headers, expectedContentLength: expected)
    }

    private func multipartBoundary() -> String? {
        guard let type = headerParser.fields["Content-Type"],
              type.utf8.count >= 25, String(type.utf8.prefix(25))?.caseInsensitiveEquals("multipart/x-mixed-replace") == true,
              let boundary = MediaType.parameter("boundary", in: type), !boundary.isEmpty else { return nil }
        return boundary
    }

    /// Moves parts out of the splitter until it needs more bytes or the transfer must hold or stop.
    private func pumpParts() {
        while machine.mayPumpParts, let event = splitter?.next() {
            switch event {
            case .part(let fields):
                switch machine.partStarted(isDownload: task is DownloadTask) {
                case .deliverResponse:
                    let problem = task.deliverResponse(makeResponse(headers: fields, part: partIndex))
                    partIndex += 1
                    if let problem { _ = machine.fail(problem) }
                case .refuse:
                    splitter = nil  // the converted part is complete; nothing after it is the download's
                case let action:
                    _ = inCallback(action, 0)
                }
            case .data(let data):
                if task.deliverData(data) { machine.holdForBackpressure() }
            case .end:
                continue
            case .malformed(let why):
                _ = machine.fail(TransferError(.badServerResponse, "bad multipart stream: \(why)", failingURL: url))
            }
        }
    }

    private func makeError(_ code: CURLcode) -> TransferError {
        if code == CURLE_OUT_OF_MEMORY, headerParser.statusCode != nil, !headerParser.isComplete {
            // libcurl 7.88 reports a header line over its 100 KiB limit as "out of memory".
            return TransferError(.badServerResponse, "the response headers are larger than libcurl accepts (a line over 100 KiB)",
                                 curlCode: Int(code.rawValue), failingURL: task.currentRequest.url)
        }
        let buffered = String(cString: errorBuffer)
        let message = buffered.isEmpty ? CurlRuntime.message(for: code) : buffered
        let raw = Int(code.rawValue)
        return TransferError(CurlErrorMapping.code(forCurlCode: raw, message: message), message,
                             curlCode: raw, failingURL: task.currentRequest.url)
    }

    private static func nanoseconds(_ seconds: TimeInterval) -> UInt64 {
        guard seconds.isFinite, seconds > 0 else { return UInt64.max / 2 }
        return UInt64(min(seconds, 1e9) * 1e9)
    }
}

// The loop owns each Transfer for as long as libcurl may call back into it, so a callback borrows it
// (`_withUnsafeGuaranteedRef`) instead of retaining and releasing it: one pair per header line and body chunk.
private func transferWriteCallback(_ bytes: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
                                   _ context: UnsafeMutableRawPointer?) -> Int {
    guard let bytes, let context else { return 0 }
    return Unmanaged<Transfer>.fromOpaque(context)._withUnsafeGuaranteedRef { $0.receiveBody(bytes, size * count) }
}

private func transferReadCallback(_ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
                                  _ context: UnsafeMutableRawPointer?) -> Int {
    guard let buffer, let context else { return sluice_readfunc_abort() }
    return Unmanaged<Transfer>.fromOpaque(context)._withUnsafeGuaranteedRef { $0.readBody(buffer, size * count) }
}

private func transferSeekCallback(_ context: UnsafeMutableRawPointer?, _ offset: curl_off_t, _ origin: Int32) -> Int32 {
    guard let context, offset == 0, origin == SEEK_SET else { return 2 }  // CURL_SEEKFUNC_CANTSEEK
    return Unmanaged<Transfer>.fromOpaque(context)._withUnsafeGuaranteedRef { $0.rewindBody() } ? 0 : 2
}

private func transferDebugCallback(_ easy: UnsafeMutableRawPointer?, _ type: curl_infotype, _ bytes: UnsafeMutablePointer<CChar>?,
                                   _ size: Int, _ context: UnsafeMutableRawPointer?) -> Int32 {
    guard let bytes, let context else { return 0 }
    Unmanaged<Transfer>.fromOpaque(context)._withUnsafeGuaranteedRef { $0.tellWire(type, UnsafeRawBufferPointer(start: bytes, count: size)) }
    return 0
}

private func transferHeaderCallback(_ bytes: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int,
                                    _ context: UnsafeMutableRawPointer?) -> Int {
    guard let bytes, let context else { return 0 }
    return Unmanaged<Transfer>.fromOpaque(context)._withUnsafeGuaranteedRef { $0.receiveHeader(bytes, size * count) }
}
