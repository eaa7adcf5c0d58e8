// libFuzzer harness for TraceEncoder: for any text, a quoted string and every trace line carrying server text
// is one line of valid JSON that decodes back to the very same scalars.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SluiceEngine

@_cdecl("LLVMFuzzerTestOneInput")
public func traceEscapingFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))

    // The whole input as one string.
    let text = String(decoding: bytes, as: UTF8.self)
    let quoted = TraceEncoder.quote(text)
    requireOneLine(quoted, from: text)
    let decoded = try? JSONDecoder().decode([String].self, from: Data(("[" + quoted + "]").utf8))
    require(decoded?.count == 1 && sameScalars(decoded?[0] ?? "", text),
            "\(shown(quoted)) decodes to \(decoded.map { $0.map(shown) } ?? ["nothing"]), not \(shown(text))")

    // The input's lines as header names and values, the first also as a redirect target and an error message.
    var input = FuzzInput(bytes)
    var lines: [String] = []
    while !input.isEmpty { lines.append(String(decoding: input.line(), as: UTF8.self)) }
    var headers = HTTPHeaders()
    for pair in stride(from: 0, to: lines.count - 1, by: 2) { headers.add(lines[pair], lines[pair + 1]) }
    let first = lines.first ?? ""
    guard let url = URL(string: "http://a.test/") else { return 0 }
    let response = Response(url: url, statusCode: 200, headers: headers, expectedContentLength: -1)
    let target = URL(string: first) ?? url
    let events: [TaskEvent] = [
        .didReceiveResponse(response),
        .willPerformHTTPRedirection(response, to: target),
        .didCompleteWithError(TransferError(.badServerResponse, first)),
        .didFinishDownloadingTo(URL(fileURLWithPath: "/tmp/" + first)),
    ]
    for event in events {
        let line = TraceEncoder.line(for: TaskEventRecord(taskIdentifier: 1, uptimeNanoseconds: 5, event: event), start: 0)
        requireOneLine(line, from: first)
        guard let object = try? JSONDecoder().decode(TraceLine.self, from: Data(line.utf8)) else {
            require(false, "not JSON: \(shown(line))")
            return 0
        }
        require(object.event == event.name && object.task == 1, "\(shown(line)) names the wrong event or task")
        switch event {
        case .didReceiveResponse, .willPerformHTTPRedirection:
            require(sameFields(object.headers, headers), "headers \(shown(line)) are not \(headers.fields)")
            if case .willPerformHTTPRedirection = event {
                require(object.newURL.map { sameScalars($0, target.absoluteString) } == true, "newURL in \(shown(line))")
            }
        case .didCompleteWithError:
            require(object.error.map { sameScalars($0.message, first) } == true, "message in \(shown(line))")
        case .didFinishDownloadingTo(let location):
            require(object.location.map { sameScalars($0, location.path) } == true, "location in \(shown(line))")
        default:
            break
        }
    }
    return 0
}

/// The parts of a trace line this harness checks.
struct TraceLine: Decodable {
    struct Failure: Decodable { let code: String; let message: String }
    let t: Double
    let task: Int
    let event: String
    let headers: [String: String]?
    let newURL: String?
    let error: Failure?
    let location: String?
}

/// No raw control character (C0, DEL, C1) and no Unicode line or paragraph separator: one line whatever reads it.
func requireOneLine(_ json: String, from text: String) {
    let raw = json.unicodeScalars.first { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0.value == 0x2028 || $0.value == 0x2029 }
    require(raw == nil, "raw U+\(String(raw?.value ?? 0, radix: 16)) in \(shown(json)) from \(shown(text))")
}

/// The decoded object holds each name once, its values joined with ", " in order, scalar for scalar.
func sameFields(_ decoded: [String: String]?, _ headers: HTTPHeaders) -> Bool {
    guard let decoded else { return false }
    var expected: [String: String] = [:]
    for field in headers { expected[field.name] = expected[field.name].map { $0 + ", " + field.value } ?? field.value }
    return decoded.count == expected.count && expected.allSatisfy { name, value in
        decoded[name].map { sameScalars($0, value) } == true
    }
}
