// The flow log and its writers without a server: folding and bounds, transfers across a conversion, Mermaid's
// escaping, HAR's entries and timings, and dates.
import Foundation
import SluiceEngine
import SluiceViewModel
import Testing

private func flows(_ events: [(Int, TaskEvent, UInt64)], added: [(Int, String)] = [(1, "http://h/f")]) -> FlowLog {
    var log = FlowLog()
    for (id, url) in added { log.apply(.added(id: id, url: url, kind: .data, requestHeaders: [HeaderLine("Accept", "*/*")], at: 0)) }
    for (id, event, time) in events { log.record(TaskEventRecord(taskIdentifier: id, uptimeNanoseconds: time, event: event)) }
    return log
}

private func reply(_ url: String, _ status: Int, location: String? = nil, type: String = "text/plain; charset=utf-8") -> Response {
    var headers: HTTPHeaders = ["Content-Type": type]
    if let location { headers.set("Location", location) }
    return Response(url: URL(string: url)!, statusCode: status, headers: headers, expectedContentLength: 4)
}

@Suite struct FlowLogTests {
    @Test func progressCallsFoldUntilSomethingElseHappens() throws {
        let log = flows([(1, .didReceiveData(bytes: 10), 1), (1, .didReceiveData(bytes: 20), 2), (1, .stateChanged(.suspended), 3),
                         (1, .stateChanged(.running), 4), (1, .didReceiveData(bytes: 5), 5)])
        let events = try #require(log[1]?.events)
        #expect(events.count == 4)
        #expect(events[0].count == 2 && events[0].bytes == 30 && events[0].time == 1 && events[0].lastTime == 2)
        #expect(events[3].count == 1 && events[3].bytes == 5)
    }

    @Test func aFoldedRunKeepsItsLastTotals() throws {
        let log = flows([(1, .didWriteData(bytes: 10, total: 10, expected: 30), 1), (1, .didWriteData(bytes: 20, total: 30, expected: 30), 2)])
        let run = try #require(log[1]?.events.first)
        #expect(run.lastEvent == .didWriteData(bytes: 20, total: 30, expected: 30))
    }

    @Test func anEndlessFlowKeepsItsHeadAndItsNewestAndSaysWhatItDropped() throws {
        var events: [(Int, TaskEvent, UInt64)] = []
        for i in 0..<3000 { events.append((1, i % 2 == 0 ? .disposition(.allow) : .stateChanged(.running), UInt64(i))) }
        let flow = try #require(flows(events)[1])
        #expect(flow.events.count == FlowLog.eventLimit)
        #expect(flow.dropped == 1000 && flow.gapIndex == FlowLog.keptHead)
        #expect(flow.events.first?.time == 0 && flow.events.last?.time == 2999)
        let gap = SequenceDiagram.of([[flow]]).steps.filter { $0.shape == .gap }
        #expect(gap.count == 1 && gap.first?.labels.first == "… 1000 calls not kept")
    }

    @Test func aConversionJoinsTheTwoTasksIntoOneTransfer() {
        let log = flows([(1, .stateChanged(.running), 1), (1, .didBecomeDownloadTask(2), 2), (2, .stateChanged(.running), 2),
                         (3, .stateChanged(.running), 3)], added: [(1, "http://h/a"), (3, "http://h/b")])
        #expect(log.chain(containing: 2).map(\.id) == [1, 2])
        #expect(log.chain(containing: 1).map(\.id) == [1, 2])
        #expect(log.chains.map { $0.map(\.id) } == [[1, 2], [3]])
        #expect(log[2]?.url == "http://h/a" && log[2]?.kind == .download)
    }

    @Test func aTaskNobodyAnnouncedLearnsItsURLAndKindFromItsEvents() {
        let log = flows([(9, .stateChanged(.running), 1), (9, .didReceiveResponse(reply("http://h/x", 200)), 2),
                         (9, .didWriteData(bytes: 4, total: 4, expected: 4), 3)], added: [])
        #expect(log[9]?.url == "http://h/x" && log[9]?.kind == .download)
        let labels = SequenceDiagram.of(log.chains).steps.flatMap(\.labels)
        #expect(!labels.contains("didReceive response"), "a download task is not asked about its response")
    }
}

@Suite struct MermaidWriterTests {
    @Test func everythingButPlainCharactersBecomesAnEntity() {
        let hostile = "a;b#c\n    Note over D: injected\r%%{init: {\"theme\":\"dark\"}}%%<img src=x onerror=alert(1)>`$$x$$`é→\u{1B}[2J&amp;"
        let escaped = MermaidWriter.escape(hostile)
        #expect(escaped.unicodeScalars.allSatisfy { $0.isASCII && $0.value >= 0x20 })
        for raw in [";", "<", ">", "%", "{", "}", "\"", "`", "$", "&", "\n", "\r", ":"] {
            #expect(!escaped.replacing(/#\d+;/, with: "").contains(raw), "\(raw) survived: \(escaped)")
        }
        // Mermaid turns #NNN; back into the character: what it shows is the sanitized text itself.
        let shown = escaped.replacing(/#(\d+);/) { String(Character(Unicode.Scalar(UInt32($0.output.1)!)!)) }
        #expect(shown == Sanitized.text(hostile))
    }

    @Test func aDiagramHasTheSeedsNamesAndOneStatementALine() {
        let log = flows([(1, .stateChanged(.running), 0), (1, .didReceiveResponse(reply("http://h/f", 200, type: "te<b>xt/%%x")), 1_000_000),
                         (1, .disposition(.allow), 2_000_000), (1, .didReceiveData(bytes: 4), 3_000_000),
                         (1, .stateChanged(.suspended), 4_000_000), (1, .stateChanged(.running), 5_000_000),
                         (1, .didBecomeDownloadTask(2), 6_000_000), (2, .stateChanged(.running), 6_000_000),
                         (2, .didWriteData(bytes: 4, total: 8, expected: 8), 7_000_000), (2, .didCompleteWithError(nil), 8_000_000)])
        let text = MermaidWriter.text(SequenceDiagram.of(log.chains), title: "flow of task 1")
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.prefix(6) == ["sequenceDiagram", "    title flow of task 1", "    participant D as URLSessionDelegate",
                                    "    participant T1 as URLSessionDataTask 1", "    participant T2 as URLSessionDownloadTask 2",
                                    "    participant S as Server"])
        #expect(lines.contains("    T1->>S: +0.000s GET http#58;//h/f"))
        #expect(lines.contains("    S-->>T1: +0.001s 200 OK, te#60;b#62;xt/#37;#37;x, 4 B"), "the server's type escaped")
        #expect(lines.contains("    S--)T1: +0.003s body, 1 chunk, 4 B"))
        #expect(lines.contains("    Note over T1: +0.004s suspend()") && lines.contains("    Note over T1: +0.005s resume()"))
        #expect(lines.contains { $0.hasPrefix("    T1-)T2: +0.006s the same transfer continues") })
        #expect(lines.last == "    T2-->>D: +0.008s urlSession(_#58;task#58;didCompleteWithError#58;) nil")
    }
}

@Suite struct HARWriterTests {
    let clock = WallClock(uptime: 0, unixNanoseconds: 1_790_000_000_123_000_000)

    func log(_ text: String) throws -> [String: Any] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        return try #require(object["log"] as? [String: Any])
    }

    func transaction(_ url: String, reused: Bool = false, tls: Double? = nil) -> TransactionMetrics {
        TransactionMetrics(url: URL(string: url)!, statusCode: 200, networkProtocol: "h2", remoteAddress: "10.1.2.3", remotePort: 443,
                           isReusedConnection: reused, domainLookupEnd: 0.001, connectEnd: 0.003, secureConnectionEnd: tls,
                           requestStart: tls ?? 0.003, responseStart: 0.010, total: 0.015, bodyBytesReceived: 4, headerBytesReceived: 90)
    }

    @Test func aRedirectIsAnEntryOfItsOwnTimedByItsTransaction() throws {
        let first = "https://user:secret@h/a?x=1&y=%C3%A9%20z"
        let metrics = TaskMetrics(transactions: [transaction("https://h/a?x=1&y=%C3%A9%20z", tls: 0.006), transaction("https://h/b", reused: true)],
                                  redirectCount: 1, duration: 0.03)
        let flowLog = flows([(1, .stateChanged(.running), 1_000_000),
                             (1, .willPerformHTTPRedirection(reply("https://h/a", 301, location: "/b"), to: URL(string: "https://h/b")!), 12_000_000),
                             (1, .redirectAnswer(URL(string: "https://h/b")!), 13_000_000),
                             (1, .didReceiveResponse(reply("https://h/b", 200)), 20_000_000), (1, .disposition(.allow), 20_000_000),
                             (1, .didReceiveData(bytes: 4), 21_000_000), (1, .didFinishCollectingMetrics(metrics), 22_000_000),
                             (1, .didCompleteWithError(nil), 22_000_000)], added: [(1, first)])
        let har = try log(HARWriter.text(flowLog.chains, clock: clock, title: "t", bodies: [1: Data("día\n".utf8)]))
        #expect(har["version"] as? String == "1.2")
        let entries = try #require(har["entries"] as? [[String: Any]])
        #expect(entries.count == 2)
        let request = try #require(entries[0]["request"] as? [String: Any])
        #expect(request["url"] as? String == "https://h/a?x=1&y=%C3%A9%20z", "no credentials in a file people share")
        #expect(request["httpVersion"] as? String == "HTTP/2")
        #expect((request["queryString"] as? [[String: String]]) == [["name": "x", "value": "1"], ["name": "y", "value": "é z"]])
        #expect((request["headers"] as? [[String: String]]) == [["name": "Accept", "value": "*/*"]])
        let redirect = try #require(entries[0]["response"] as? [String: Any])
        #expect(redirect["status"] as? Int == 301 && redirect["statusText"] as? String == "Moved Permanently")
        #expect(redirect["redirectURL"] as? String == "https://h/b")
        #expect(entries[0]["startedDateTime"] as? String == "2026-09-21T14:13:20.124Z")
        let t0 = try #require(entries[0]["timings"] as? [String: Double])
        #expect(t0 == ["blocked": -1, "dns": 1, "connect": 5, "ssl": 3, "send": 0, "wait": 4, "receive": 5])
        #expect(entries[0]["time"] as? Double == 15, "dns + connect (TLS inside) + send + wait + receive")
        let t1 = try #require(entries[1]["timings"] as? [String: Double])
        #expect(t1["dns"] == -1 && t1["connect"] == -1 && t1["ssl"] == -1, "a reused connection resolved and connected nothing")
        #expect(entries[1]["serverIPAddress"] as? String == "10.1.2.3" && entries[1]["connection"] as? String == "443")
        let content = try #require((entries[1]["response"] as? [String: Any])?["content"] as? [String: Any])
        #expect(content["text"] as? String == "día\n" && content["encoding"] == nil, "text stays text")
        #expect(content["mimeType"] as? String == "text/plain; charset=utf-8")
    }

    @Test func aFailureBeforeAnyResponseHasStatusZeroAndItsError() throws {
        let flowLog = flows([(1, .stateChanged(.running), 0),
                             (1, .didCompleteWithError(TransferError(.cannotConnectToHost, "Couldn't connect\u{1B}[2J \"x\"")), 2_000_000)])
        let text = HARWriter.text(flowLog.chains, clock: clock, title: "t")
        #expect(!text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "control characters escaped")
        let entry = try #require((try log(text)["entries"] as? [[String: Any]])?.first)
        #expect((entry["response"] as? [String: Any])?["status"] as? Int == 0)
        #expect(entry["_error"] as? String == "cannotConnectToHost: Couldn't connect\u{1B}[2J \"x\"")
        #expect(entry["time"] as? Double == 2)
    }

    @Test func binaryBodiesAreBase64AndOnlyHTTPTransfersAreWritten() throws {
        let flowLog = flows([(1, .stateChanged(.running), 0), (1, .didReceiveResponse(reply("http://h/f", 200, type: "image/png")), 1),
                             (1, .didReceiveData(bytes: 3), 2), (1, .didCompleteWithError(nil), 3), (2, .stateChanged(.running), 0)],
                            added: [(1, "http://h/f"), (2, "file:///etc/hostname")])
        let entries = try #require(try log(HARWriter.text(flowLog.chains, clock: clock, title: "t", bodies: [1: Data([0, 255, 10])]))["entries"]
            as? [[String: Any]])
        #expect(entries.count == 1)
        let content = try #require((entries[0]["response"] as? [String: Any])?["content"] as? [String: Any])
        #expect(content["encoding"] as? String == "base64" && content["text"] as? String == "AP8K")
    }

    @Test func datesAreUTCWithMilliseconds() {
        #expect(WallClock.iso8601(unixNanoseconds: 0) == "1970-01-01T00:00:00.000Z")
        #expect(WallClock.iso8601(unixNanoseconds: 951_782_400_999_000_000) == "2000-02-29T00:00:00.999Z")
        #expect(WallClock.iso8601(unixNanoseconds: -1_000_000) == "1969-12-31T23:59:59.999Z")
        #expect(WallClock(uptime: 5_000_000_000, unixNanoseconds: 1_000_000_000).iso8601(4_000_000_000) == "1970-01-01T00:00:00.000Z")
    }
}
