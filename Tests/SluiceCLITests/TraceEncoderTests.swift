// The --trace JSON lines: field names, escaping of server text, and byte counts as users read them.
import Foundation
import SluiceCLI
import SluiceEngine
import Testing

@Suite struct TraceEncoderTests {
    func record(_ event: TaskEvent, at ns: UInt64 = 1_500_000) -> TaskEventRecord {
        TaskEventRecord(taskIdentifier: 7, uptimeNanoseconds: ns, event: event)
    }

    func decode(_ line: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
        return try #require(object as? [String: Any])
    }

    @Test func stateChangedLine() throws {
        let line = TraceEncoder.line(for: record(.stateChanged(.running)), start: 500_000)
        #expect(line == #"{"t":0.001000,"task":7,"event":"stateChanged","state":"running"}"#)
    }

    @Test func responseLineEscapesControlCharacters() throws {
        let response = Response(url: URL(string: "http://h/")!, statusCode: 200,
                                headers: ["X-Evil": "\u{1B}]0;owned\u{07}\u{1B}[2J", "Set-Cookie": "a", "set-cookie": "b"],
                                expectedContentLength: -1, part: 2)
        let line = TraceEncoder.line(for: record(.didReceiveResponse(response)), start: 0)
        #expect(!line.unicodeScalars.contains { $0.value < 0x20 })  // no raw control character at all
        let object = try decode(line)
        #expect(object["status"] as? Int == 200)
        #expect(object["expectedContentLength"] as? Int == -1)
        #expect(object["part"] as? Int == 2)
        let headers = try #require(object["headers"] as? [String: String])
        #expect(headers["X-Evil"] == "\u{1B}]0;owned\u{07}\u{1B}[2J")  // escaped in JSON, intact once decoded
    }

    @Test func completionLines() throws {
        let ok = try decode(TraceEncoder.line(for: record(.didCompleteWithError(nil)), start: 0))
        #expect(ok["error"] is NSNull)
        let failed = try decode(TraceEncoder.line(
            for: record(.didCompleteWithError(TransferError(.timedOut, "no data for 2 s"))), start: 0))
        let error = try #require(failed["error"] as? [String: String])
        #expect(error == ["code": "timedOut", "message": "no data for 2 s"])
    }

    @Test func dataAndDispositionLines() throws {
        let data = try decode(TraceEncoder.line(for: record(.didReceiveData(bytes: 16384)), start: 0))
        #expect(data["event"] as? String == "didReceiveData")
        #expect(data["bytes"] as? Int == 16384)
        let disposition = try decode(TraceEncoder.line(for: record(.disposition(.becomeDownload)), start: 0))
        #expect(disposition["value"] as? String == "becomeDownload")
    }
}

extension TraceEncoderTests {
    @Test func downloadAndUploadEventsCarryTheirFields() throws {
        let became = try decode(TraceEncoder.line(for: record(.didBecomeDownloadTask(9)), start: 0))
        #expect(became["event"] as? String == "didBecomeDownloadTask")
        #expect(became["downloadTask"] as? Int == 9)
        let wrote = try decode(TraceEncoder.line(for: record(.didWriteData(bytes: 10, total: 30, expected: -1)), start: 0))
        #expect(wrote["bytes"] as? Int == 10 && wrote["total"] as? Int == 30 && wrote["expected"] as? Int == -1)
        let sent = try decode(TraceEncoder.line(for: record(.didSendBodyData(bytes: 1, total: 2, expected: 3)), start: 0))
        #expect(sent["event"] as? String == "didSendBodyData" && sent["total"] as? Int == 2 && sent["expected"] as? Int == 3)
        let resumed = try decode(TraceEncoder.line(for: record(.didResumeAtOffset(offset: 5, expected: 8)), start: 0))
        #expect(resumed["offset"] as? Int == 5 && resumed["expected"] as? Int == 8)
        let redirect = Response(url: URL(string: "http://a.test/")!, statusCode: 303, headers: ["Location": "/b"], expectedContentLength: 0)
        let asked = try decode(TraceEncoder.line(for: record(.willPerformHTTPRedirection(redirect, to: URL(string: "http://a.test/b")!)), start: 0))
        #expect(asked["event"] as? String == "willPerformHTTPRedirection" && asked["status"] as? Int == 303)
        #expect(asked["newURL"] as? String == "http://a.test/b")
        #expect((asked["headers"] as? [String: String])?["Location"] == "/b")
        let followed = try decode(TraceEncoder.line(for: record(.redirectAnswer(URL(string: "http://a.test/b")!)), start: 0))
        #expect(followed["follow"] as? String == "http://a.test/b")
        let refused = try decode(TraceEncoder.line(for: record(.redirectAnswer(nil)), start: 0))
        #expect(refused["follow"] is NSNull)
        let t = TransactionMetrics(url: URL(string: "http://a.test/")!, statusCode: 200, networkProtocol: "h2", remoteAddress: "::1",
                                   remotePort: 443, secureConnectionEnd: 0.0015, total: 0.25, bodyBytesReceived: 7)
        let metrics = try decode(TraceEncoder.line(for: record(.didFinishCollectingMetrics(TaskMetrics(transactions: [t], redirectCount: 0, duration: 0.3))), start: 0))
        let first = (metrics["transactions"] as? [[String: Any]])?.first
        #expect(first?["protocol"] as? String == "h2" && first?["remotePort"] as? Int == 443 && first?["bodyBytesReceived"] as? Int == 7)
        #expect(first?["secureConnectionEnd"] as? Double == 0.0015 && first?["total"] as? Double == 0.25)
        #expect(metrics["duration"] as? Double == 0.3 && metrics["redirects"] as? Int == 0)
        let location = URL(fileURLWithPath: "/tmp/a\u{1B}b")
        let finished = TraceEncoder.line(for: record(.didFinishDownloadingTo(location)), start: 0)
        #expect(!finished.unicodeScalars.contains { $0.value == 0x1B })
        #expect(try decode(finished)["location"] as? String == "/tmp/a\u{1B}b")
    }
}
