// Splits a multipart/x-mixed-replace body into parts by its boundary, across any chunk edges.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Fed the body stream in arbitrary pieces, it yields part headers and part data in order. libcurl hands the
/// body over as one stream, so finding parts is the engine's job.
struct MultipartSplitter {
    enum Event: Equatable {
        /// A part begins; these are its own header fields.
        case part(HTTPHeaders)
        case data(Data)
        /// The closing delimiter was seen; anything after it is ignored.
        case end
        /// A part's header block grew past the limit: the stream is not what it claims.
        case malformed(String)
    }

    private enum Phase { case preamble, afterDelimiter, headers, body, epilogue, failed }

    private let delimiter: [UInt8]        // "\r\n--" + boundary
    private var buffer: [UInt8]
    private var start = 0                 // consumed prefix of `buffer`
    private var phase = Phase.preamble
    static let maximumHeaderBlock = 64 << 10
    static let maximumBoundaryPadding = 1024

    init(boundary: String) {
        delimiter = Array("\r\n--\(boundary)".utf8)
        // A virtual line break lets the first delimiter match at the very start of the body.
        buffer = [13, 10]
    }

    mutating func feed(_ bytes: some Sequence<UInt8>) {
        compact()
        buffer.append(contentsOf: bytes)
    }

    /// The next event the bytes fed so far allow, or nil when more bytes are needed.
    mutating func next() -> Event? {
        while true {
            switch phase {
            case .preamble:
                guard let at = find(delimiter) else {
                    start = max(start, buffer.count - (delimiter.count - 1))
                    return nil
                }
                start = at + delimiter.count
                phase = .afterDelimiter
            case .afterDelimiter:
                guard buffer.count - start >= 2 else { return nil }
                if buffer[start] == 45, buffer[start + 1] == 45 {  // "--": the closing delimiter
                    phase = .epilogue
                    return .end
                }
                // Each limit is judged on the bytes, never on how many have arrived, so chunking cannot change it.
                guard let lineEnd = find([13, 10]), lineEnd - start <= Self.maximumBoundaryPadding else {
                    if buffer.count - start >= Self.maximumBoundaryPadding + 2 { return fail("no line break after a boundary") }
                    return nil
                }
                start = lineEnd + 2  // transport padding after the boundary is ignored
                phase = .headers
            case .headers:
                if buffer.count - start >= 2, buffer[start] == 13, buffer[start + 1] == 10 {
                    start += 2
                    phase = .body
                    return .part(HTTPHeaders())
                }
                guard let end = find([13, 10, 13, 10]), end - start <= Self.maximumHeaderBlock else {
                    if buffer.count - start >= Self.maximumHeaderBlock + 4 { return fail("part headers over 64 KiB") }
                    return nil
                }
                let block = String(decoding: buffer[start..<end], as: UTF8.self)
                start = end + 4
                phase = .body
                return .part(HeaderLineParser.fields(ofBlock: block))
            case .body:
                if let at = find(delimiter) {
                    if at > start {
                        let data = Data(buffer[start..<at])
                        start = at
                        return .data(data)
                    }
                    switch delimiterEnding(after: at + delimiter.count) {
                    case .needMore:
                        return nil
                    case .real:
                        start = at + delimiter.count
                        phase = .afterDelimiter
                        continue
                    case .notADelimiter:
                        // The boundary text followed by something else is part of the body.
                        start = at + 1
                        return .data(Data(buffer[at..<at + 1]))
                    }
                }
                // Keep back only a tail that could be the start of a delimiter split across chunks.
                let safeEnd = buffer.count - partialDelimiterSuffix()
                guard safeEnd > start else { return nil }
                let data = Data(buffer[start..<safeEnd])
                start = safeEnd
                return .data(data)
            case .epilogue:
                start = buffer.count
                return nil
            case .failed:
                return nil
            }
        }
    }

    /// Body bytes still held back when the stream ended without a closing delimiter.
    mutating func finish() -> Data? {
        guard phase == .body else { return nil }
        // The virtual prefix never reaches here: the body phase starts after a real delimiter.
        defer { start = buffer.count; phase = .epilogue }
        return buffer.count > start ? Data(buffer[start...]) : nil
    }

    private mutating func fail(_ why: String) -> Event {
        phase = .failed
        return .malformed(why)
    }

    private mutating func compact() {
        if start > 0 && (start >= 4096 || start == buffer.count) {
            buffer.removeFirst(start)
            start = 0
        }
    }

    private enum DelimiterEnding { case real, notADelimiter, needMore }

    /// A boundary is only a delimiter when "--" or optional blanks and a line break follow it (RFC 2046).
    private func delimiterEnding(after index: Int) -> DelimiterEnding {
        var i = index
        guard buffer.count - i >= 2 else { return .needMore }
        if buffer[i] == 45 && buffer[i + 1] == 45 { return .real }
        while i < buffer.count && (buffer[i] == 32 || buffer[i] == 9) { i += 1 }
        guard buffer.count - i >= 2 else { return .needMore }
        return buffer[i] == 13 && buffer[i + 1] == 10 ? .real : .notADelimiter
    }

    /// The length of the longest tail of the unread bytes that is a proper prefix of the delimiter.
    private func partialDelimiterSuffix() -> Int {
        var length = min(delimiter.count - 1, buffer.count - start)
        while length > 0 {
            if buffer[(buffer.count - length)...].elementsEqual(delimiter[..<length]) { return length }
            length -= 1
        }
        return 0
    }

    private func find(_ needle: [UInt8]) -> Int? {
        guard buffer.count - start >= needle.count, let first = needle.first else { return nil }
        var i = start
        let last = buffer.count - needle.count
        while i <= last {
            if buffer[i] == first {
                var j = 1
                while j < needle.count && buffer[i + j] == needle[j] { j += 1 }
                if j == needle.count { return i }
            }
            i += 1
        }
        return nil
    }
}
