// Flows as the engine reports them, at a fixed clock, for the sequence layout's snapshots: a conversion with a
// suspension, redirects that end in a failure, a multipart stream, and a response awaiting its answer.
import Foundation
import SluiceEngine
import SluiceViewModel

enum SequenceSamples {
    static let base = "http://127.0.0.1:8080"

    static func at(_ seconds: Double) -> UInt64 { UInt64(seconds * 1e9) }

    static func response(_ path: String, _ status: Int = 200, length: Int64 = -1, part: Int? = nil,
                         headers: HTTPHeaders = ["Content-Type": "application/octet-stream"]) -> Response {
        Response(url: URL(string: base + path)!, statusCode: status, headers: headers, expectedContentLength: length, part: part)
    }

    /// A sample: the events the UI folds, the tasks announced first as the UI announces them.
    struct Sample {
        let events: [ModelEvent]

        var flows: FlowLog {
            var log = FlowLog()
            for e in events { log.apply(e) }
            return log
        }

        var model: Model {
            var m = Model()
            for e in events { m.apply(e) }
            return m
        }

        /// The diagram of the first transfer.
        var diagram: SequenceDiagram { SequenceDiagram.of([flows.chains[0]]) }
    }

    static func log(_ added: [(Int, String)], _ events: [(Int, TaskEvent, Double)]) -> Sample {
        Sample(events: added.map { .added(id: $0.0, url: base + $0.1, kind: .data, requestHeaders: [], at: 0) }
            + events.map { .engine(TaskEventRecord(taskIdentifier: $0.0, uptimeNanoseconds: at($0.2), event: $0.1)) })
    }

    /// Data task 5: a response, chunks, a suspension and a resume, more chunks, then `d`: download task 7 takes the
    /// transfer over and finishes it.
    static let conversion: Sample = {
        let path = "/drip?bytes=16000000&chunk=16384&interval=20&name=worth-converting.bin"
        var events: [(Int, TaskEvent, Double)] = [
            (5, .stateChanged(.running), 0.1),
            (5, .didReceiveResponse(response(path, headers: ["Content-Type": "application/octet-stream",
                                                            "Content-Disposition": "attachment; filename=\"worth-converting.bin\""])), 0.2),
            (5, .disposition(.allow), 0.2),
        ]
        for i in 0..<300 { events.append((5, .didReceiveData(bytes: 16384), 0.25 + Double(i) * 0.012)) }
        events += [(5, .stateChanged(.suspended), 4.0), (5, .stateChanged(.running), 6.0)]
        for i in 0..<50 { events.append((5, .didReceiveData(bytes: 16384), 6.1 + Double(i) * 0.02)) }
        events += [(5, .didBecomeDownloadTask(7), 7.2), (5, .stateChanged(.completed), 7.2), (7, .stateChanged(.running), 7.2)]
        for i in 0..<100 { events.append((7, .didWriteData(bytes: 16384, total: 5_734_400 + Int64(i + 1) * 16384, expected: -1), 7.3 + Double(i) * 0.017)) }
        let metrics = TaskMetrics(transactions: [TransactionMetrics(url: URL(string: base + path)!, statusCode: 200, networkProtocol: "http/1.1",
                                                                    remoteAddress: "127.0.0.1", remotePort: 8080, domainLookupEnd: 0.0001,
                                                                    connectEnd: 0.0004, requestStart: 0.0005, responseStart: 0.1, total: 9.0,
                                                                    bodyBytesReceived: 7_372_800, headerBytesReceived: 180)],
                                  redirectCount: 0, duration: 9.0)
        events += [(7, .didFinishDownloadingTo(URL(fileURLWithPath: "/tmp/.sluice-AbC123.download")), 9.05),
                   (7, .didFinishCollectingMetrics(metrics), 9.06), (7, .stateChanged(.completed), 9.07), (7, .didCompleteWithError(nil), 9.07)]
        return log([(5, path)], events)
    }()

    /// Task 6: two 301s followed, a response, chunks, then the connection drops.
    static let redirectsThenFailure: Sample = log([(6, "/redirect/2?status=301")], [
        (6, .stateChanged(.running), 0.1),
        (6, .willPerformHTTPRedirection(response("/redirect/2?status=301", 301, length: 20, headers: ["Location": "/redirect/1?status=301"]),
                                        to: URL(string: base + "/redirect/1?status=301")!), 0.112),
        (6, .redirectAnswer(URL(string: base + "/redirect/1?status=301")!), 0.113),
        (6, .willPerformHTTPRedirection(response("/redirect/1?status=301", 301, length: 20, headers: ["Location": "/bytes/3000000?drop=1500000"]),
                                        to: URL(string: base + "/bytes/3000000?drop=1500000")!), 0.121),
        (6, .redirectAnswer(URL(string: base + "/bytes/3000000?drop=1500000")!), 0.122),
        (6, .didReceiveResponse(response("/bytes/3000000?drop=1500000", length: 3_000_000)), 0.13),
        (6, .disposition(.allow), 0.131),
        (6, .didReceiveData(bytes: 1_000_000), 0.2), (6, .didReceiveData(bytes: 500_000), 0.25),
        (6, .stateChanged(.completed), 0.3),
        (6, .didCompleteWithError(TransferError(.networkConnectionLost, "transfer closed with 1500000 bytes remaining to read",
                                                curlCode: 18)), 0.3),
    ])

    /// Task 2: three parts of multipart/x-mixed-replace, each asked about, then the end.
    static let multipart: Sample = {
        var events: [(Int, TaskEvent, Double)] = [(2, .stateChanged(.running), 0.1)]
        for part in 0..<3 {
            let t = 0.2 + Double(part) * 0.4
            events += [(2, .didReceiveResponse(response("/multipart?parts=3&size=4096&interval=400", length: 4096, part: part,
                                                        headers: ["Content-Type": "text/plain"])), t),
                       (2, .disposition(.allow), t), (2, .didReceiveData(bytes: 4096), t + 0.01)]
        }
        events += [(2, .stateChanged(.completed), 1.2), (2, .didCompleteWithError(nil), 1.2)]
        return log([(2, "/multipart?parts=3&size=4096&interval=400")], events)
    }()

    /// Task 3: its response waits for the delegate's answer.
    static let awaiting: Sample = log([(3, "/bytes/4000000?name=awaiting-your-answer.bin")], [
        (3, .stateChanged(.running), 0.1),
        (3, .didReceiveResponse(response("/bytes/4000000?name=awaiting-your-answer.bin", length: 4_000_000)), 0.2),
    ])
}
