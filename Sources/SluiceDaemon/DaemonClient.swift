// The client side of the daemon's socket, in plain POSIX calls: one request per connection (`Connection:
// close`), read to the end; and the events stream read line by line. Used by `sluice add/ls/stop` and the tests.
#if canImport(Glibc)
import Glibc
#endif

public struct DaemonResponse: Sendable, Equatable {
    public let status: Int
    public let body: String
}

public struct DaemonClient: Sendable {
    public let socketPath: String

    public init(socketPath: String) { self.socketPath = socketPath }

    /// A connected socket, or nil when nobody listens there (no file, or a stale one).
    public func connect() -> Int32? {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(socketPath.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(fd)
            return nil
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let connected = withUnsafePointer(to: &address) { a in
            a.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    public var isAnswering: Bool {
        guard let fd = connect() else { return false }
        close(fd)
        return true
    }

    /// Sends one request and reads the whole reply (the daemon closes after it). `timeout` bounds each read.
    public func send(_ method: String, _ path: String, body: String? = nil, timeout: Int = 30) throws(DaemonFailure) -> DaemonResponse {
        guard let fd = connect() else { throw DaemonFailure("no daemon answers on \(socketPath)") }
        defer { close(fd) }
        setTimeout(fd, seconds: timeout)
        try write(fd, Self.request(method, path, body: body))
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw DaemonFailure("reading the daemon's reply: \(String(cString: strerror(errno)))") }
            if n == 0 { break }
            data += buffer[0..<n]
        }
        guard let reply = Self.parse(data) else { throw DaemonFailure("the daemon's reply was not HTTP") }
        return reply
    }

    /// Opens `GET /events?from=N` and calls `line` for each JSON line until it returns false, the stream ends or
    /// nothing comes for `timeout` seconds. False when it ended any other way than by `line` saying so.
    public func events(from: Int, timeout: Int = 30, _ line: (String) -> Bool) throws(DaemonFailure) -> Bool {
        try stream("/events?from=\(from)", timeout: timeout, line)
    }

    /// Opens a streaming `GET path` and calls `line` for each line, as `events` does. `timeout` 0 waits for ever;
    /// `opened` gets the socket first, so that another thread can end the stream (`shutdown`).
    public func stream(_ path: String, timeout: Int, opened: (Int32) -> Void = { _ in }, _ line: (String) -> Bool) throws(DaemonFailure) -> Bool {
        guard let fd = connect() else { throw DaemonFailure("no daemon answers on \(socketPath)") }
        defer { close(fd) }
        setTimeout(fd, seconds: timeout)
        try write(fd, Self.request("GET", path, body: nil))
        opened(fd)
        var pending: [UInt8] = []
        var decoder = ChunkDecoder()
        var inBody = false
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            var bytes = Array(buffer[0..<n])
            if !inBody {
                pending += bytes
                guard let end = Self.headEnd(pending) else { continue }
                inBody = true
                bytes = Array(pending[end...])
                pending = []
            }
            for text in decoder.feed(bytes) {
                pending += text
                while let newline = pending.firstIndex(of: 0x0A) {
                    let lineText = String(decoding: pending[..<newline], as: UTF8.self)
                    pending.removeSubrange(...newline)
                    if !line(lineText) { return true }
                }
            }
            if decoder.ended { return false }
        }
    }

    private func setTimeout(_ fd: Int32, seconds: Int) {
        var limit = timeval(tv_sec: seconds, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    }

    private func write(_ fd: Int32, _ text: String) throws(DaemonFailure) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { throw DaemonFailure("writing to the daemon: \(String(cString: strerror(errno)))") }
            bytes = bytes.dropFirst(n)
        }
    }

    static func request(_ method: String, _ path: String, body: String?) -> String {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
        if let body {
            text += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body
        } else {
            text += "\r\n"
        }
        return text
    }

    static func headEnd(_ data: [UInt8]) -> Int? {
        guard data.count >= 4 else { return nil }
        for i in 0...(data.count - 4) where data[i] == 13 && data[i + 1] == 10 && data[i + 2] == 13 && data[i + 3] == 10 {
            return i + 4
        }
        return nil
    }

    /// Status and body of a whole reply (with Content-Length, or chunked).
    static func parse(_ data: [UInt8]) -> DaemonResponse? {
        guard let end = headEnd(data) else { return nil }
        let head = String(decoding: data[..<end], as: UTF8.self)
        let statusLine = head.split(separator: "\r\n").first ?? ""
        let words = statusLine.split(separator: " ")
        guard words.count >= 2, words[0].hasPrefix("HTTP/1."), let status = Int(words[1]) else { return nil }
        var body = Array(data[end...])
        if head.lowercased().contains("transfer-encoding: chunked") {
            var decoder = ChunkDecoder()
            body = decoder.feed(body).flatMap { $0 }
        }
        return DaemonResponse(status: status, body: String(decoding: body, as: UTF8.self))
    }
}

/// HTTP/1.1 chunked transfer coding, undone a piece at a time as bytes arrive.
struct ChunkDecoder {
    private var remaining = 0
    private var sizeLine: [UInt8] = []
    /// Bytes of the CRLF after a chunk still to skip.
    private var trailer = 0
    private(set) var ended = false

    mutating func feed(_ bytes: [UInt8]) -> [[UInt8]] {
        var out: [[UInt8]] = []
        var i = 0
        while i < bytes.count && !ended {
            if remaining > 0 {
                let n = min(remaining, bytes.count - i)
                out.append(Array(bytes[i..<(i + n)]))
                remaining -= n
                i += n
                if remaining == 0 { trailer = 2 }
            } else if trailer > 0 {
                trailer -= 1
                i += 1
            } else {
                let byte = bytes[i]
                i += 1
                if byte == 0x0A {
                    let text = String(decoding: sizeLine, as: UTF8.self).split(separator: ";").first.map(String.init) ?? ""
                    sizeLine = []
                    guard let size = Int(text.trimmingSpaces, radix: 16) else { continue }
                    if size == 0 { ended = true } else { remaining = size }
                } else if byte != 0x0D {
                    sizeLine.append(byte)
                }
            }
        }
        return out
    }
}

private extension String {
    var trimmingSpaces: String { String(filter { $0 != " " && $0 != "\t" }) }
}
