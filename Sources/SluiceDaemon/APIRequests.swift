// The bodies the API accepts: what to add (`POST /tasks`) and the limits (`POST /limits`).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SluiceEngine
import SluiceTUI
import SluiceViewModel

/// `{"url": "...", "kind": "download"|"data", "output": "/abs/FILE"?, "directory": "/abs/DIR"?, "split": N?,
/// "ask": true?, "method": "POST"?, "headers": [["Name", "value"], ...]?, "body": "BASE64"?, "bytesPerSecond": N?}`
public struct AddRequest: Sendable, Equatable {
    public let url: String
    public let kind: TaskKind
    public let destination: DownloadDestination?
    /// Connections for a download's ranges (1 to 16); nil: the daemon's default.
    public var split: Int? = nil
    /// A data task's response waits for an answer (resume: allow, cancel, convert: become a download).
    public var ask = false
    /// The request's own method, headers and body (curl's -X, -H, -d as `sluice add` takes them); nil: a GET.
    public var method: String? = nil
    public var headers: [HeaderLine] = []
    public var body: Data? = nil
    /// The task's own receive limit from its start (`sluice add --limit-rate`); nil: none of its own.
    public var bytesPerSecond: Int64? = nil

    private struct Body: Decodable {
        let url: String
        let kind: String?
        let output: String?
        let directory: String?
        let split: Int?
        let ask: Bool?
        let method: String?
        let headers: [[String]]?
        let body: String?
        let bytesPerSecond: Int64?
    }

    /// The request for `url` this asks for, when it asks for more than a plain GET.
    public var request: (@Sendable (URL) -> Request)? {
        guard method != nil || !headers.isEmpty || body != nil else { return nil }
        let (method, headers, body) = (self.method ?? (self.body == nil ? "GET" : "POST"), self.headers, self.body)
        return { url in Request(url: url, method: method, headers: HTTPHeaders(headers.map { (name: $0.name, value: $0.value) }), body: body) }
    }

    public static func parse(_ data: Data) -> Result<AddRequest, DaemonFailure> {
        guard let body = try? JSONDecoder().decode(Body.self, from: data) else {
            return .failure(DaemonFailure("expected {\"url\": \"...\", \"kind\": \"download\" or \"data\", \"output\": FILE or \"directory\": DIR}"))
        }
        let kind: TaskKind
        switch body.kind ?? "download" {
        case "download": kind = .download
        case "data": kind = .data
        default: return .failure(DaemonFailure("kind is \"download\" or \"data\""))
        }
        if body.output != nil && body.directory != nil { return .failure(DaemonFailure("give output or directory, not both")) }
        if kind == .data && (body.output != nil || body.directory != nil) {
            return .failure(DaemonFailure("a data task saves nothing: output and directory are for downloads"))
        }
        // The daemon's working directory is not the client's: only absolute paths mean the same to both.
        for path in [body.output, body.directory].compactMap({ $0 }) where !path.hasPrefix("/") {
            return .failure(DaemonFailure("\(Sanitized.text(path)) is not an absolute path"))
        }
        if let split = body.split, !(1...16).contains(split) { return .failure(DaemonFailure("split is 1 to 16 connections")) }
        if let rate = body.bytesPerSecond, rate < 1 { return .failure(DaemonFailure("bytesPerSecond is at least 1")) }
        if body.ask == true && kind != .data { return .failure(DaemonFailure("ask holds a data task's response: give \"kind\": \"data\"")) }
        if let method = body.method, method.isEmpty || !method.utf8.allSatisfy(Self.isTokenByte) {
            return .failure(DaemonFailure("not a method: \(Sanitized.text(method))"))
        }
        var headers: [HeaderLine] = []
        for pair in body.headers ?? [] {
            guard pair.count == 2, !pair[0].isEmpty, pair[0].utf8.allSatisfy(Self.isTokenByte),
                  !pair[1].utf8.contains(where: { $0 == 13 || $0 == 10 || $0 == 0 }) else {
                return .failure(DaemonFailure("a header is [\"Name\", \"value\"], a token and a value on one line"))
            }
            headers.append(HeaderLine(pair[0], pair[1]))
        }
        var payload: Data?
        if let text = body.body {
            guard let decoded = Data(base64Encoded: text) else { return .failure(DaemonFailure("body is base64")) }
            payload = decoded
        }
        let destination = body.output.map(DownloadDestination.file) ?? body.directory.map(DownloadDestination.directory)
        return .success(AddRequest(url: body.url, kind: kind, destination: destination, split: body.split, ask: body.ask ?? false,
                                   method: body.method, headers: headers, body: payload, bytesPerSecond: body.bytesPerSecond))
    }
}

extension AddRequest {
    /// RFC 9110's tchar: what a method or a header name is made of.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }
}

/// `{"jobs": N, "bytesPerSecond": N or null}`, either or both: how many transfer at once, and the receive limit of
/// all of them together (null: none).
struct LimitsRequest: Decodable, Equatable {
    var jobs: Int?
    /// nil: not given; `.some(nil)`: remove the limit.
    var rate: Int64??

    private enum CodingKeys: String, CodingKey { case jobs, bytesPerSecond }

    init(jobs: Int?, rate: Int64??) {
        self.jobs = jobs
        self.rate = rate
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        jobs = try container.decodeIfPresent(Int.self, forKey: .jobs)
        if container.contains(.bytesPerSecond) {
            rate = .some(try container.decodeNil(forKey: .bytesPerSecond) ? nil : try container.decode(Int64.self, forKey: .bytesPerSecond))
        }
    }

    static func parse(_ data: Data) -> LimitsRequest? {
        guard let limits = try? JSONDecoder().decode(LimitsRequest.self, from: data), limits.jobs != nil || limits.rate != nil else { return nil }
        return limits
    }
}

/// `{"bytesPerSecond": N or null}` for one task.
struct TaskLimitRequest: Decodable {
    let bytesPerSecond: Int64?

    static func parse(_ data: Data) -> Int64?? {
        guard let body = try? JSONDecoder().decode(TaskLimitRequest.self, from: data) else { return nil }
        return .some(body.bytesPerSecond)
    }
}

/// `{"url": "...", "force": true?}`: a download's new URL.
struct RefreshRequest: Decodable {
    let url: String
    let force: Bool?

    static func parse(_ data: Data) -> RefreshRequest? { try? JSONDecoder().decode(RefreshRequest.self, from: data) }
}

/// `{"by": N}`: places towards the front of the queue (negative: towards the back).
struct MoveRequest: Decodable {
    let by: Int

    static func parse(_ data: Data) -> Int? { (try? JSONDecoder().decode(MoveRequest.self, from: data))?.by }
}
