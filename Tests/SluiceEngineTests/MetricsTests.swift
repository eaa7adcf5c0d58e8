// didFinishCollectingMetrics against the scenario server: one transaction per request sent, libcurl's timings in
// order, the connection reused by a redirect, and the call just before didCompleteWithError.
import Foundation
import SluiceEngine
import SluiceScenarioServer
import Synchronization
import Testing

@Suite struct MetricsTests {
    func metrics(_ log: EventLog) -> [TaskMetrics] {
        log.events.compactMap { if case .didFinishCollectingMetrics(let m) = $0 { m } else { nil } }
    }

    func run(_ url: URL, log: EventLog) async -> Bool {
        let recorder = Recorder()
        Session(delegate: recorder, delegateQueue: recorder.queue, eventMonitor: log.monitor).dataTask(with: url).resume()
        return await recorder.waitForCompletion()
    }

    @Test func oneRequestGivesOneTransactionJustBeforeTheCompletion() async throws {
        let server = try Servers.shared()
        let log = EventLog()
        guard await run(server.url("/bytes/1000"), log: log) else { return }
        let names = log.names
        #expect(Array(names.suffix(3)) == ["didFinishCollectingMetrics", "stateChanged", "didCompleteWithError"])
        let all = metrics(log)
        #expect(all.count == 1)
        guard let m = all.first, let t = m.transactions.first else { return }
        #expect(m.transactions.count == 1 && m.redirectCount == 0)
        #expect(t.url == server.url("/bytes/1000"))
        #expect(t.statusCode == 200 && t.networkProtocol == "http/1.1")
        #expect(t.remoteAddress == "127.0.0.1" && t.remotePort == server.baseURL.port)
        #expect(!t.isReusedConnection, "a new session opens its own connection")
        #expect(t.bodyBytesReceived == 1000 && t.bodyBytesSent == 0 && t.headerBytesReceived > 0)
        #expect(t.domainLookupEnd <= t.connectEnd && t.connectEnd <= t.requestStart)
        #expect(t.requestStart <= t.responseStart && t.responseStart <= t.total && t.total > 0)
        #expect(t.secureConnectionEnd == nil)
        #expect(m.duration >= t.total)
    }

    @Test func eachRedirectIsATransactionOnTheSameConnection() async throws {
        let server = try Servers.shared()
        let log = EventLog()
        guard await run(server.url("/redirect/3"), log: log) else { return }
        guard let m = metrics(log).first else { Issue.record("no metrics"); return }
        #expect(m.redirectCount == 3)
        #expect(m.transactions.map(\.statusCode) == [302, 302, 302, 200])
        #expect(m.transactions.map(\.url.path) == ["/redirect/3", "/redirect/2", "/redirect/1", "/bytes/16"])
        #expect(m.transactions.map(\.isReusedConnection) == [false, true, true, true])
    }

    @Test func aRedirectsBodyIsReadToItsEndSoTheConnectionIsKept() async throws {
        let server = try Servers.shared()
        let log = EventLog()
        guard await run(server.url("/redirect/1?delay=100"), log: log) else { return }
        #expect(metrics(log).first?.transactions.map(\.isReusedConnection) == [false, true])
    }

    @Test func aFileURLSendsNoRequest() async throws {
        let log = EventLog()
        guard await run(URL(fileURLWithPath: "/etc/hostname"), log: log) else { return }
        #expect(metrics(log).map(\.transactions.count) == [0])
    }

    @Test func aDownloadThatWasADataTaskReportsTheRequestItContinued() async throws {
        let server = try Servers.shared()
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let recorder = DownloadRecorder(plan: { _ in .becomeDownload })
        let log = EventLog()
        downloadSession(recorder, directory: dir, log: log).dataTask(with: server.url("/redirect/1")).resume()
        guard await recorder.waitForCompletion() else { return }
        let reported = log.records.compactMap { r -> Int? in
            if case .didFinishCollectingMetrics = r.event { r.taskIdentifier } else { nil }
        }
        #expect(reported == [recorder.snapshot.completedTask].compactMap { $0 }, "only the download reports metrics")
        #expect(metrics(log).first?.transactions.map(\.statusCode) == [302, 200])
    }
}
