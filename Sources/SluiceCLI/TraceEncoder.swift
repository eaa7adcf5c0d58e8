// Turns delegate events into the JSON lines `--trace` prints; server text is escaped, never written raw.
import Dispatch
import SluiceEngine
#if canImport(SluiceViewModel)  // scripts/fuzz compiles this file with JSONText.swift in one module
import SluiceViewModel
#endif

func uptimeNanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

public enum TraceEncoder {
    /// A monitor that prints each event as one line on stderr, timed from now.
    static func monitor() -> TaskEventMonitor {
        let start = uptimeNanoseconds()
        return { record in StandardStreams.error(line(for: record, start: start) + "\n") }
    }

    /// One JSON object, no trailing newline. `start` is the uptime (ns) that `t` counts from.
    public static func line(for record: TaskEventRecord, start: UInt64) -> String {
        var fields: [(String, String)] = [
            ("t", SecondsText.format(nanoseconds: record.uptimeNanoseconds &- start, decimals: 6)),
            ("task", String(record.taskIdentifier)),
            ("event", quote(record.event.name)),
        ]
        switch record.event {
        case .stateChanged(let state):
            fields.append(("state", quote(state.rawValue)))
        case .didReceiveResponse(let response):
            fields.append(("status", response.statusCode.map(String.init) ?? "null"))
            fields.append(("headers", object(response.headers)))
            fields.append(("expectedContentLength", String(response.expectedContentLength)))
            if let part = response.part { fields.append(("part", String(part))) }
        case .disposition(let value):
            fields.append(("value", quote(value.rawValue)))
        case .didReceiveData(let bytes):
            fields.append(("bytes", String(bytes)))
        case .didCompleteWithError(let error):
            fields.append(("error", error.map(object) ?? "null"))
        case .didBecomeDownloadTask(let identifier):
            fields.append(("downloadTask", String(identifier)))
        case .didWriteData(let bytes, let total, let expected), .didSendBodyData(let bytes, let total, let expected):
            fields += [("bytes", String(bytes)), ("total", String(total)), ("expected", String(expected))]
        case .didFinishDownloadingTo(let location):
            fields.append(("location", quote(location.path)))
        case .didResumeAtOffset(let offset, let expected):
            fields += [("offset", String(offset)), ("expected", String(expected))]
        case .willPerformHTTPRedirection(let response, let url):
            fields.append(("status", response.statusCode.map(String.init) ?? "null"))
            fields.append(("headers", object(response.headers)))
            fields.append(("newURL", quote(url.absoluteString)))
        case .redirectAnswer(let url):
            fields.append(("follow", url.map { quote($0.absoluteString) } ?? "null"))
        case .didReceiveChallenge(let space, let failures):
            fields += [("method", quote(space.authenticationMethod.rawValue)), ("host", quote(space.host)),
                       ("port", String(space.port)), ("realm", space.realm.map(quote) ?? "null"),
                       ("proxy", space.isProxy ? "true" : "false"), ("previousFailureCount", String(failures))]
        case .needNewBodyStream:
            break
        case .mirrorDropped(let url, let reason):
            fields += [("url", quote(url.absoluteString)), ("reason", quote(reason))]
        case .didReceiveInformationalResponse(let response):
            fields.append(("status", response.statusCode.map(String.init) ?? "null"))
            fields.append(("headers", object(response.headers)))
        case .challengeAnswer(let disposition):
            fields.append(("disposition", quote(disposition)))
        case .didFinishCollectingMetrics(let metrics):
            fields.append(("transactions", "[" + metrics.transactions.map(object).joined(separator: ",") + "]"))
            fields += [("redirects", String(metrics.redirectCount)), ("duration", seconds(metrics.duration))]
        }
        return object(fields)
    }

    static func object(_ error: TransferError) -> String {
        var fields = [("code", quote(error.code.rawValue)), ("message", quote(error.message))]
        if error.resumeData != nil { fields.append(("resumable", "true")) }
        return object(fields)
    }

    /// One request's metrics; times in seconds from that request's start.
    static func object(_ t: TransactionMetrics) -> String {
        func optional(_ value: String?) -> String { value.map(quote) ?? "null" }
        return object([
            ("url", quote(t.url.absoluteString)), ("status", t.statusCode.map(String.init) ?? "null"),
            ("protocol", optional(t.networkProtocol)), ("remoteAddress", optional(t.remoteAddress)),
            ("remotePort", t.remotePort.map(String.init) ?? "null"), ("reusedConnection", t.isReusedConnection ? "true" : "false"),
            ("domainLookupEnd", seconds(t.domainLookupEnd)), ("connectEnd", seconds(t.connectEnd)),
            ("secureConnectionEnd", t.secureConnectionEnd.map(seconds) ?? "null"), ("requestStart", seconds(t.requestStart)),
            ("responseStart", seconds(t.responseStart)), ("total", seconds(t.total)),
            ("bodyBytesSent", String(t.bodyBytesSent)), ("bodyBytesReceived", String(t.bodyBytesReceived)),
            ("headerBytesReceived", String(t.headerBytesReceived)),
        ])
    }

    /// Seconds with microseconds, as libcurl measures them.
    static func seconds(_ value: Double) -> String {
        SecondsText.format(nanoseconds: UInt64(max(0, value) * 1e9), decimals: 6)
    }

    /// Header fields as one object; repeated names are combined with ", " as HTTP allows.
    static func object(_ headers: HTTPHeaders) -> String {
        var order: [String] = []
        var values: [String: String] = [:]
        for field in headers {
            if let existing = values[field.name] {
                values[field.name] = existing + ", " + field.value
            } else {
                order.append(field.name)
                values[field.name] = field.value
            }
        }
        return object(order.map { ($0, quote(values[$0] ?? "")) })
    }

    static func object(_ fields: [(String, String)]) -> String {
        "{" + fields.map { quote($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }

    /// A JSON string literal; every control character (ESC included) becomes a \u escape.
    public static func quote(_ text: String) -> String { JSONText.quote(text) }

}
