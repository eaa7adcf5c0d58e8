// libFuzzer harness for MultipartSplitter: the same parts whatever the chunk split, and well-formed bodies
// give back exactly the parts they were built from.
//
// Input: a flags byte (bit 0: build a well-formed body), a count N of chunk-plan bytes taken from the end,
// then the Content-Type line that names the boundary, then the body (or, when building, the parts' data
// separated by NUL bytes).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func multipartFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let build = input.byte() & 1 == 1
    let plan = Array(input.tail(Int(input.byte())))
    let contentType = String(decoding: input.line(), as: UTF8.self)
    guard var boundary = MediaType.parameter("boundary", in: contentType), !boundary.isEmpty else { return 0 }

    let body: [UInt8]
    var expected: [Piece]?
    if build {
        // RFC 2046 boundary characters only, so that the delimiter cannot overlap itself.
        boundary = String(boundary.unicodeScalars.filter { $0.isASCII && bcharacters.contains(UInt8($0.value)) }.prefix(70))
        if boundary.isEmpty { boundary = "B" }
        let parts = input.rest().split(separator: 0, omittingEmptySubsequences: false).prefix(32).map(Array.init)
        (body, expected) = wellFormed(parts: parts, boundary: boundary)
    } else {
        body = Array(input.rest())
    }

    let whole = split(body, boundary: boundary, plan: [])
    let planned = split(body, boundary: boundary, plan: plan)
    require(planned == whole, "chunk plan \(plan) gave \(planned), whole body gave \(whole); body \(shown(body))")
    let bytewise = split(body, boundary: boundary, plan: [1])
    require(bytewise == whole, "byte by byte gave \(bytewise), whole body gave \(whole); body \(shown(body))")
    if let expected {
        require(whole == expected, "built from \(expected) but split into \(whole); body \(shown(body))")
    }
    return 0
}

/// What a consumer sees, with the data of consecutive events joined (chunk edges may split it anywhere).
enum Piece: Equatable, CustomStringConvertible {
    case part(HTTPHeaders)
    case data([UInt8])
    case end
    case malformed(String)

    var description: String {
        switch self {
        case .part(let headers): "part(\(headers.fields.map { "\($0.name): \($0.value)" }))"
        case .data(let bytes): "data(\(shown(bytes)))"
        case .end: "end"
        case .malformed(let why): "malformed(\(why))"
        }
    }
}

/// Feeds `body` in the chunks `plan` gives (its low 7 bits the size, the high bit "do not read events yet"),
/// cycling through the plan; an empty plan feeds the body whole.
func split(_ body: [UInt8], boundary: String, plan: [UInt8]) -> [Piece] {
    var splitter = MultipartSplitter(boundary: boundary)
    var pieces: [Piece] = []
    func add(_ piece: Piece) {
        if case .data(let more) = piece, case .data(let bytes)? = pieces.last {
            pieces[pieces.count - 1] = .data(bytes + more)
        } else if case .data(let bytes) = piece, bytes.isEmpty {
            return
        } else {
            pieces.append(piece)
        }
    }
    func drain() {
        while let event = splitter.next() {
            switch event {
            case .part(let headers): add(.part(headers))
            case .data(let data): add(.data(Array(data)))
            case .end: add(.end)
            case .malformed(let why): add(.malformed(why))
            }
        }
    }
    var at = 0, step = 0, feeds = 0
    while at < body.count {
        let size = plan.isEmpty ? body.count : Int(plan[step % plan.count] & 0x7F)
        let waits = !plan.isEmpty && plan[step % plan.count] & 0x80 != 0
        step += 1
        let end = min(body.count, at + size)
        splitter.feed(body[at..<end])
        at = end
        feeds += 1
        if !waits { drain() }
        if feeds > 4 * body.count + 16 { break }  // a plan of empty chunks only
    }
    if at < body.count { splitter.feed(body[at...]) }
    drain()
    if let rest = splitter.finish() { add(.data(Array(rest))) }
    return pieces
}

/// A body of these parts (even ones with an X-Part field, odd ones with no header at all) and what splitting it
/// must give, or no expectation when a part's data contains the delimiter itself.
func wellFormed(parts: [[UInt8]], boundary: String) -> ([UInt8], [Piece]?) {
    let delimiter = Array("\r\n--\(boundary)".utf8)
    var body: [UInt8] = []
    var pieces: [Piece] = []
    var clean = true
    for (index, data) in parts.enumerated() {
        if index > 0 { body += [13, 10] }
        body += Array("--\(boundary)\r\n".utf8)
        if index % 2 == 0 {
            body += Array("X-Part: \(index)\r\n".utf8)
            pieces.append(.part(["X-Part": "\(index)"]))
        } else {
            pieces.append(.part(HTTPHeaders()))
        }
        body += [13, 10] + data
        if !data.isEmpty { pieces.append(.data(data)) }
        if contains(data + delimiter.prefix(delimiter.count - 1), delimiter) { clean = false }
    }
    body += delimiter + Array("--\r\nepilogue".utf8)
    pieces.append(.end)
    return (body, clean ? pieces : nil)
}

private func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard haystack.count >= needle.count else { return false }
    return (0...(haystack.count - needle.count)).contains { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
}

/// RFC 2046 `bchars`: digits, letters and '()+_,-./:=? (space is allowed but not last; left out here).
private let bcharacters: Set<UInt8> = Set(Array("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'()+_,-./:=?".utf8))
