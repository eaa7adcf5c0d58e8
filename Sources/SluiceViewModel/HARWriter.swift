// Transfers as a HAR 1.2 file (what browsers' devtools, mitmproxy and Charles exchange): one entry per request
// sent, redirects included, with headers, status, sizes and the metrics' timings. Bodies only when given.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SluiceEngine

public enum HARWriter {
    public static let creator = "sluice"
    /// Sluice has no release number yet; HAR wants one.
    public static let creatorVersion = "unreleased"

    /// The whole file. `chains` are transfers (a data task and the download it may have become; see
    /// `FlowLog.chains`); only http and https ones are written. `bodies` holds response bodies by the transfer's
    /// first task; without one the content has its size and type but no text.
    public static func text(_ chains: [[TaskFlow]], clock: WallClock, title: String, bodies: [Int: Data] = [:]) -> String {
        var entries: [String] = []
        var first: UInt64?
        for chain in chains {
            guard let root = chain.first, isHTTP(root.url) else { continue }
            let hops = TransferHop.of(chain)
            for (i, hop) in hops.enumerated() {
                first = min(first ?? hop.started, hop.started)
                let body = i == hops.count - 1 ? bodies[root.id] : nil
                entries.append(entry(hop, clock: clock, body: body, became: i == hops.count - 1 && chain.count > 1 ? chain.last?.id : nil))
            }
        }
        let page = JSONText.object([
            ("startedDateTime", JSONText.quote(clock.iso8601(first ?? clock.uptime))),
            ("id", JSONText.quote("page_1")),
            ("title", JSONText.quote(title)),
            ("pageTimings", JSONText.object([("onContentLoad", "-1"), ("onLoad", "-1")], indent: 8)),
        ], indent: 6)
        let log = JSONText.object([
            ("version", JSONText.quote("1.2")),
            ("creator", JSONText.object([("name", JSONText.quote(creator)), ("version", JSONText.quote(creatorVersion))], indent: 4)),
            ("pages", JSONText.array([page], indent: 4)),
            ("entries", JSONText.array(entries, indent: 4)),
        ], indent: 2)
        return "{\n  \"log\": " + log + "\n}\n"
    }

    /// Only http and https transfers go into a HAR.
    public static func isHTTP(_ url: String) -> Bool {
        let lower = url.prefix(8).lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }

    private static func entry(_ hop: TransferHop, clock: WallClock, body: Data?, became: Int?) -> String {
        let timings = Timings(hop)
        let t = hop.transaction
        let version = httpVersion(t?.networkProtocol)
        var request: [(String, String)] = [
            ("method", JSONText.quote(hop.method)),
            ("url", JSONText.quote(SequenceText.withoutCredentials(hop.url))),
            ("httpVersion", JSONText.quote(version)),
            ("cookies", "[]"),
            ("headers", headers(hop.requestHeaders.map { ($0.name, $0.value) }, indent: 10)),
            ("queryString", queryString(hop.url)),
            ("headersSize", "-1"),
            ("bodySize", ["GET", "HEAD"].contains(hop.method.uppercased()) ? "0" : "-1"),
        ]
        if let sent = t?.bodyBytesSent, sent > 0 { request[7] = ("bodySize", String(sent)) }

        let r = hop.response
        var content: [(String, String)] = [
            ("size", String(hop.bytes)),
            ("mimeType", JSONText.quote(r?.headers["Content-Type"] ?? "")),
        ]
        if let body {
            if isTextual(r?.mimeType), let text = String(validating: body, as: UTF8.self) {
                content.append(("text", JSONText.quote(text)))
            } else {
                content.append(("text", JSONText.quote(body.base64EncodedString())))
                content.append(("encoding", JSONText.quote("base64")))
            }
        }
        var notes: [String] = []
        if hop.extraParts > 0 {
            notes.append("multipart/x-mixed-replace: \(hop.extraParts + 1) parts; the headers are the first part's")
        }
        if let became { notes.append("continued as download task \(became) (the same transfer)") }
        if !notes.isEmpty { content.append(("comment", JSONText.quote(notes.joined(separator: "; ")))) }
        let response: [(String, String)] = [
            ("status", String(r?.statusCode ?? 0)),
            ("statusText", JSONText.quote(r?.statusCode.map(HTTPStatusText.reason) ?? "")),
            ("httpVersion", JSONText.quote(r == nil ? "" : version)),
            ("cookies", "[]"),
            ("headers", headers(r?.headers.map { ($0.name, $0.value) } ?? [], indent: 10)),
            ("content", JSONText.object(content, indent: 10)),
            ("redirectURL", JSONText.quote(hop.redirectURL.map(SequenceText.withoutCredentials) ?? "")),
            ("headersSize", t.map { String($0.headerBytesReceived) } ?? "-1"),
            ("bodySize", r == nil ? "-1" : String(t?.bodyBytesReceived ?? hop.bytes)),
        ]
        var fields: [(String, String)] = [
            ("pageref", JSONText.quote("page_1")),
            ("startedDateTime", JSONText.quote(clock.iso8601(hop.started))),
            ("time", JSONText.milliseconds(timings.total)),
            ("request", JSONText.object(request, indent: 8)),
            ("response", JSONText.object(response, indent: 8)),
            ("cache", "{}"),
            ("timings", JSONText.object(timings.fields, indent: 8)),
        ]
        if let address = t?.remoteAddress { fields.append(("serverIPAddress", JSONText.quote(address))) }
        if let port = t?.remotePort { fields.append(("connection", JSONText.quote(String(port)))) }
        fields.append(("_taskIdentifier", String(hop.taskID)))
        if let error = hop.error {
            fields.append(("_error", JSONText.quote(error.code.rawValue + ": " + error.message)))
        }
        return JSONText.object(fields, indent: 6)
    }

    /// HAR's timings in milliseconds from libcurl's: the time to resolve, to connect (TLS included, as HAR wants,
    /// and also given alone as `ssl`), to send, to the first byte (`wait`) and to the end. A reused connection
    /// resolved and connected nothing (-1).
    struct Timings {
        var dns = -1.0, connect = -1.0, ssl = -1.0, send = 0.0, wait = 0.0, receive = 0.0

        init(_ hop: TransferHop) {
            guard let t = hop.transaction else {
                // No request reached libcurl's clock (it failed before one was sent): the flow's own times.
                let responded = hop.responded ?? hop.ended
                wait = Double(responded &- hop.started) / 1e6
                receive = Double(hop.ended &- responded) / 1e6
                if responded < hop.started { wait = 0 }
                if hop.ended < responded { receive = 0 }
                return
            }
            var connected = 0.0
            if !t.isReusedConnection {
                dns = max(0, t.domainLookupEnd) * 1000
                connected = max(t.connectEnd, t.secureConnectionEnd ?? 0)
                connect = max(0, connected - t.domainLookupEnd) * 1000
                if let tls = t.secureConnectionEnd { ssl = max(0, tls - t.connectEnd) * 1000 }
            }
            send = max(0, t.requestStart - connected) * 1000
            wait = max(0, t.responseStart - max(t.requestStart, connected)) * 1000
            receive = max(0, t.total - max(t.responseStart, t.requestStart, connected)) * 1000
        }

        /// The entry's time: every phase that applies (ssl is inside connect).
        var total: Double { [dns, connect, send, wait, receive].filter { $0 >= 0 }.reduce(0, +) }

        var fields: [(String, String)] {
            [("blocked", "-1"), ("dns", JSONText.milliseconds(dns)), ("connect", JSONText.milliseconds(connect)),
             ("ssl", JSONText.milliseconds(ssl)), ("send", JSONText.milliseconds(send)), ("wait", JSONText.milliseconds(wait)),
             ("receive", JSONText.milliseconds(receive))]
        }
    }

    /// "HTTP/1.1", "HTTP/2"; HTTP/1.1 when libcurl did not say.
    static func httpVersion(_ name: String?) -> String {
        switch name {
        case "http/1.0": "HTTP/1.0"
        case "h2": "HTTP/2"
        case "h3": "HTTP/3"
        default: "HTTP/1.1"
        }
    }

    /// One header to a line.
    static func headers(_ fields: [(String, String)], indent: Int) -> String {
        JSONText.array(fields.map { "{\"name\": \(JSONText.quote($0.0)), \"value\": \(JSONText.quote($0.1))}" }, indent: indent)
    }

    /// The query's name=value pairs, percent-decoded, as HAR lists them.
    static func queryString(_ url: String) -> String {
        guard let mark = url.firstIndex(of: "?") else { return "[]" }
        let query = url[url.index(after: mark)...].prefix { $0 != "#" }
        let pairs = query.split(separator: "&").map { pair -> String in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = TaskName.percentDecoded(parts[0])
            let value = parts.count > 1 ? TaskName.percentDecoded(parts[1]) : ""
            return "{\"name\": \(JSONText.quote(name)), \"value\": \(JSONText.quote(value))}"
        }
        return JSONText.array(pairs, indent: 10)
    }

    /// Text worth writing as text: text/*, JSON, XML, JavaScript; anything else goes as base64.
    static func isTextual(_ mime: String?) -> Bool {
        guard let mime else { return false }
        return mime.hasPrefix("text/") || mime.hasSuffix("json") || mime.hasSuffix("xml") || mime.hasSuffix("javascript")
            || mime == "application/x-www-form-urlencoded"
    }
}
