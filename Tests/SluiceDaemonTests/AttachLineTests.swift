// The attach stream's lines: a UI that reads the daemon's events through JSON holds exactly the model the daemon
// holds, and a snapshot brings a new UI to the same rows; the limits and move bodies parse as docs/api.md says.
import Foundation
import SluiceEngine
@testable import SluiceDaemon
import SluiceViewModel
import Testing

struct AttachLineTests {
    private static let url = URL(string: "http://127.0.0.1:8080/files/a%20b.iso?x=1")!

    /// Every kind of event a task goes through, with the values that are hardest to carry: headers in order and
    /// repeated, metrics, an error, a challenge, ranges, a retry and a limit.
    private static var events: [ModelEvent] {
        let t: UInt64 = 5_000_000_000
        var headers = HTTPHeaders()
        headers.add("Set-Cookie", "a=1")
        headers.add("Set-Cookie", "b=2")
        headers.add("Content-Type", "application/octet-stream; name=\"\u{1B}[31mred\"")
        let response = Response(url: url, statusCode: 206, headers: headers, expectedContentLength: 4000)
        let metrics = TaskMetrics(transactions: [TransactionMetrics(url: url, statusCode: 206, networkProtocol: "h2", remoteAddress: "127.0.0.1")],
                                  redirectCount: 1, duration: 0.25)
        func engine(_ id: Int, _ at: UInt64, _ event: TaskEvent) -> ModelEvent {
            .engine(TaskEventRecord(taskIdentifier: id, uptimeNanoseconds: t + at, event: event))
        }
        return [
            .added(id: 1, url: url.absoluteString, kind: .download, requestHeaders: [HeaderLine("Range", "bytes=0-")], at: t),
            engine(1, 1, .stateChanged(.running)),
            engine(1, 2, .didReceiveChallenge(ProtectionSpace(host: "127.0.0.1", port: 8080, protocol: "http", realm: "r",
                                                              authenticationMethod: .digest, isProxy: false), previousFailureCount: 1)),
            engine(1, 3, .challengeAnswer("useCredential")),
            engine(1, 4, .didReceiveResponse(response)),
            engine(1, 5, .didWriteData(bytes: 1000, total: 1000, expected: 4000)),
            .segments(id: 1, [DownloadSegment(start: 0, end: 2000, next: 1000, isActive: true)]),
            .tick(t + 300_000_000),
            .taskRateLimit(id: 1, 2048),
            .sessionRateLimit(1 << 20),
            engine(1, 400_000_000, .didWriteData(bytes: 1000, total: 2000, expected: 4000)),
            engine(1, 500_000_000, .didFinishCollectingMetrics(metrics)),
            engine(1, 600_000_000, .didCompleteWithError(TransferError(.networkConnectionLost, "the connection was lost", curlCode: 56,
                                                                      failingURL: url))),
            .retrying(id: 1, attempt: 2, of: 5, at: t + 4_000_000_000, reason: "connection lost"),
            .added(id: 2, url: "data:,hi", kind: .data, requestHeaders: [], at: t + 700_000_000),
            .queueOrder([2]),
            .note(id: 2, "café ✓"),
            .saved(id: 1, path: "/tmp/a b.iso"),
        ]
    }

    @Test func eventsReadBackFromTheirLinesBuildTheSameModel() throws {
        var direct = Model()
        var attached = Model()
        for event in Self.events {
            direct.apply(event)
            let text = try #require(AttachLine.events([event]).text)
            #expect(text.hasSuffix("\n") && text.dropLast().allSatisfy { $0 != "\n" }, "one line")
            guard case .events(let read) = try #require(AttachLine.parse(String(text.dropLast()))) else {
                Issue.record("not an events line")
                continue
            }
            for event in read { attached.apply(event) }
        }
        #expect(attached == direct)
        #expect(direct.row(1)?.responseHeaders.count == 3, "the sample really carries what it claims")
        #expect(direct.row(1)?.retry != nil && direct.row(1)?.rateLimit == 2048)
    }

    @Test func aSnapshotBringsANewUIToTheSameRows() throws {
        var model = Model()
        for event in Self.events { model.apply(event) }
        let snapshot = AttachSnapshot(identifier: "default", rows: model.rows, sessionRateLimit: model.sessionRateLimit,
                                      outputDirectory: "/tmp")
        let text = try #require(AttachLine.snapshot(snapshot).text)
        guard case .snapshot(let read) = try #require(AttachLine.parse(String(text.dropLast()))) else {
            Issue.record("not a snapshot line")
            return
        }
        #expect(read == snapshot)
        #expect(read.version == AttachSnapshot.currentVersion)
        var fresh = Model()
        for row in read.rows { fresh.apply(.restored(row)) }
        #expect(fresh.rows == model.rows)
        #expect(AttachLine.parse("{\"snapshot\":{}}") == nil, "a line of another shape is refused, not half read")
    }

    @Test func limitsAndMoveBodies() {
        #expect(LimitsRequest.parse(Data(#"{"jobs":3}"#.utf8)) == LimitsRequest(jobs: 3, rate: nil))
        #expect(LimitsRequest.parse(Data(#"{"bytesPerSecond":1000}"#.utf8)) == LimitsRequest(jobs: nil, rate: .some(1000)))
        #expect(LimitsRequest.parse(Data(#"{"bytesPerSecond":null}"#.utf8)) == LimitsRequest(jobs: nil, rate: .some(nil)))
        #expect(LimitsRequest.parse(Data(#"{"jobs":2,"bytesPerSecond":5}"#.utf8)) == LimitsRequest(jobs: 2, rate: .some(5)))
        for bad in ["{}", #"{"jobs":"x"}"#, #"{"bytesPerSecond":"fast"}"#, "[]"] {
            #expect(LimitsRequest.parse(Data(bad.utf8)) == nil, "\(bad)")
        }
        #expect(TaskLimitRequest.parse(Data(#"{"bytesPerSecond":null}"#.utf8)) == .some(nil))
        #expect(TaskLimitRequest.parse(Data(#"{"bytesPerSecond":7}"#.utf8)) == .some(7))
        #expect(TaskLimitRequest.parse(Data("nope".utf8)) == nil)
        #expect(MoveRequest.parse(Data(#"{"by":-2}"#.utf8)) == -2)
        #expect(MoveRequest.parse(Data(#"{"to":1}"#.utf8)) == nil)
    }
}
