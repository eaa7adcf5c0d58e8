// Upload tasks against the scenario server, which checks every received byte against the pattern.
import Foundation
import SluiceEngine
import SluiceScenarioServer
import Synchronization
import SluiceLock
import Testing

@Suite struct UploadTaskTests {
    func session(_ recorder: Recorder, log: EventLog) -> Session {
        Session(delegate: recorder, delegateQueue: recorder.queue, eventMonitor: log.monitor)
    }

    func sentTotals(_ log: EventLog) -> [(total: Int64, expected: Int64)] {
        log.events.compactMap { if case .didSendBodyData(_, let total, let expected) = $0 { (total, expected) } else { nil } }
    }

    @Test func uploadFromMemoryReportsProgressAndTheResponse() async throws {
        let server = try Servers.shared()
        let recorder = Recorder()
        let log = EventLog()
        let size = 300_000
        let task = session(recorder, log: log).uploadTask(with: Request(url: server.url("/upload"), method: "PUT"),
                                                          from: patternBytes(count: size))
        #expect(task.countOfBytesExpectedToSend == Int64(size))
        task.resume()
        guard await recorder.waitForCompletion() else { return }
        let s = recorder.snapshot
        #expect(s.error == nil)
        #expect(String(decoding: s.body, as: UTF8.self) == "bytes=\(size) pattern=ok\n")
        #expect(sentTotals(log).last?.total == Int64(size))
        #expect(sentTotals(log).last?.expected == Int64(size))
        #expect(task.countOfBytesSent == Int64(size))
        let names = log.names
        if let lastSent = names.lastIndex(of: "didSendBodyData"), let response = names.firstIndex(of: "didReceiveResponse") {
            #expect(lastSent < response)
        }
    }

    /// Its memory is checked by scripts/e2e-cli on `sluice put`, in a process of its own: here the peak RSS is
    /// shared with every test running in parallel (a 24 MiB body gathered elsewhere made it flaky).
    @Test func uploadFromALargeFileArrivesWhole() async throws {
        let server = try Servers.shared()
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let size = 128 << 20
        let path = dir.path + "/big.bin"
        try writePatternFile(path, size: size)
        let recorder = Recorder()
        let log = EventLog()
        session(recorder, log: log).uploadTask(with: Request(url: server.url("/upload"), method: "POST"),
                                               fromFile: URL(fileURLWithPath: path)).resume()
        guard await recorder.waitForCompletion(60) else { return }
        #expect(recorder.snapshot.error == nil)
        #expect(String(decoding: recorder.snapshot.body, as: UTF8.self) == "bytes=\(size) pattern=ok\n")
        #expect(sentTotals(log).last?.total == Int64(size))
    }

    /// Found by a tester: `sluice put -X POST FILE` went out as a form (libcurl's default type for a POST); curl -T
    /// sends a file with none, and so does a file upload here unless the request names one.
    @Test func aFileSentWithPOSTIsNoForm() async throws {
        let server = try Servers.shared()
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let path = dir.path + "/small.txt"
        try Data("hello\n".utf8).write(to: URL(fileURLWithPath: path))
        let recorder = Recorder()
        session(recorder, log: EventLog()).uploadTask(with: Request(url: server.url("/headers"), method: "POST"),
                                                      fromFile: URL(fileURLWithPath: path)).resume()
        guard await recorder.waitForCompletion(10) else { return }
        let echoed = String(decoding: recorder.snapshot.body, as: UTF8.self)
        #expect(echoed.contains("POST") || echoed.contains("Content-Length: 6"), "\(echoed)")
        #expect(!echoed.lowercased().contains("content-type"), "\(echoed)")
    }

    @Test func uploadFromAStreamWaitsForTheProducer() async throws {
        let server = try Servers.shared()
        let recorder = Recorder()
        let log = EventLog()
        let stream = UploadStream(capacity: 64 << 10)
        let task = session(recorder, log: log).uploadTask(with: Request(url: server.url("/upload")), body: .stream(stream))
        #expect(task.currentRequest.method == "POST")
        #expect(task.countOfBytesExpectedToSend == -1)
        task.resume()
        let total = 1_000_000
        var offset = 0
        while offset < total {
            let n = min(30_000, total - offset)
            try await stream.write(patternBytes(offset: Int64(offset), count: n))
            offset += n
            if offset == 300_000 {
                // The stream runs dry here; the upload must wait for the next write, not end or time out.
                #expect(await eventually { task.countOfBytesSent == 300_000 })
            }
        }
        stream.finish()
        guard await recorder.waitForCompletion() else { return }
        #expect(recorder.snapshot.error == nil)
        #expect(String(decoding: recorder.snapshot.body, as: UTF8.self) == "bytes=\(total) pattern=ok\n")
        await #expect(throws: TransferError.self) { try await stream.write(Data([1])) }
    }

    @Test func a307SendsAFileBodyAgainAndA303DropsIt() async throws {
        let server = try Servers.shared()
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let path = dir.path + "/body.bin"
        try writePatternFile(path, size: 200_000)
        for (status, expected) in [(307, "bytes=200000 pattern=ok\n"), (303, "bytes=0 pattern=ok\n")] {
            let recorder = Recorder()
            let request = Request(url: server.url("/redirect/1?status=\(status)&to=/upload"), method: "POST")
            let task = session(recorder, log: EventLog()).uploadTask(with: request, fromFile: URL(fileURLWithPath: path))
            task.resume()
            guard await recorder.waitForCompletion() else { return }
            #expect(String(decoding: recorder.snapshot.body, as: UTF8.self) == expected, "after a \(status)")
            #expect(task.currentRequest.method == (status == 303 ? "GET" : "POST"))
        }
    }

    @Test func a307CannotSendAStreamTwice() async throws {
        let server = try Servers.shared()
        let recorder = Recorder()
        let stream = UploadStream(capacity: 64 << 10)
        session(recorder, log: EventLog()).uploadTask(with: Request(url: server.url("/redirect/1?status=307&to=/upload")),
                                                      body: .stream(stream)).resume()
        try await stream.write(patternBytes(count: 10_000))
        stream.finish()
        guard await recorder.waitForCompletion() else { return }
        #expect(recorder.snapshot.error?.code == .requestBodyStreamExhausted)
        #expect(recorder.snapshot.responses.isEmpty)
    }

    /// Given a new stream with the same bytes, a 307 sends the body again, and so does a challenge's retry.
    @Test(arguments: ["/redirect/1?status=307&to=%2Fupload", "/redirect/1?status=308&to=%2Fupload"])
    func aRedirectAsksForANewBodyStream(_ path: String) async throws {
        let server = try Servers.shared()
        let recorder = StreamGiver(bytes: 10_000)
        let log = EventLog()
        let session = Session(delegate: recorder, delegateQueue: recorder.queue, eventMonitor: log.monitor)
        defer { session.finishTasksAndInvalidate() }
        session.uploadTask(with: Request(url: server.url(path), method: "POST"), body: .stream(recorder.fresh())).resume()
        #expect(await eventually(30) { recorder.done.withLock { $0 != nil } })  // liveness under a sanitizer
        #expect(recorder.done.withLock { $0 } == "bytes=10000 pattern=ok\n")
        #expect(recorder.asked.withLock { $0 } == 1)
        #expect(log.names.contains("needNewBodyStream"))
    }

    @Test func aStarvedStreamUploadWakesAfterItsTaskBecameADownload() async throws {
        let server = try Servers.shared()
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let recorder = DownloadRecorder(plan: { _ in .becomeDownload })
        let stream = UploadStream(capacity: 64 << 10)
        try await stream.write(patternBytes(count: 10_000))  // sent at once; then the stream runs dry
        downloadSession(recorder, directory: dir, log: EventLog())
            .uploadTask(with: Request(url: server.url("/upload?early=5000")), body: .stream(stream)).resume()
        // The server answers before the body is complete; the task becomes a download while the upload waits.
        guard await eventually(10, { !recorder.snapshot.became.isEmpty }) else {
            Issue.record("the task did not become a download")
            return
        }
        try await stream.write(patternBytes(offset: 10_000, count: 10_000))  // must wake the converted transfer
        stream.finish()
        guard await recorder.waitForCompletion() else { return }
        #expect(recorder.snapshot.error == nil)
        #expect(recorder.snapshot.fileBody == patternBytes(count: 5000))
    }

    @Test func aMissingFileIsAClearError() async throws {
        let server = try Servers.shared()
        let recorder = Recorder()
        Session(delegate: recorder, delegateQueue: recorder.queue)
            .uploadTask(with: Request(url: server.url("/upload")), fromFile: URL(fileURLWithPath: "/nonexistent/file.bin")).resume()
        guard await recorder.waitForCompletion() else { return }
        #expect(recorder.snapshot.error?.code == .fileDoesNotExist)
        #expect(recorder.snapshot.error?.message.contains("/nonexistent/file.bin") == true)
    }

    @Test func asyncUploadReturnsTheResponseBody() async throws {
        let server = try Servers.shared()
        let (body, response) = try await Session.shared.upload(for: Request(url: server.url("/echo"), method: "PUT"),
                                                               body: .data(Data("hello".utf8)))
        #expect(response.statusCode == 200)
        #expect(response.headers["X-Request-Method"] == "PUT")
        #expect(body == Data("hello".utf8))
    }
}

/// Writes `size` pattern bytes a period at a time (fast even in a debug build).
func writePatternFile(_ path: String, size: Int) throws {
    let period = patternBytes(count: ScenarioPattern.period)
    guard FileManager.default.createFile(atPath: path, contents: nil),
          let handle = FileHandle(forWritingAtPath: path) else {
        throw TransferError(.cannotWriteToFile, "cannot create \(path)")
    }
    defer { try? handle.close() }
    var written = 0
    while written < size {
        let n = min(period.count, size - written)
        try handle.write(contentsOf: period.prefix(n))
        written += n
    }
}

/// Gives a stream of `bytes` pattern bytes at the start and again whenever the engine asks for a new one.
final class StreamGiver: SessionDataDelegate, @unchecked Sendable {
    let queue = DispatchQueue(label: "test.streams")
    let asked = Locked(0)
    let done = Locked<String?>(nil)
    private let body = Locked(Data())
    private let bytes: Int

    init(bytes: Int) { self.bytes = bytes }

    func fresh() -> UploadStream {
        let stream = UploadStream(capacity: 64 << 10)
        let content = patternBytes(count: bytes)
        Task {
            try? await stream.write(content)
            stream.finish()
        }
        return stream
    }

    func urlSession(_ session: Session, task: SessionTask,
                    needNewBodyStream completionHandler: @escaping @Sendable (UploadStream?) -> Void) {
        asked.withLock { $0 += 1 }
        completionHandler(fresh())
    }

    func urlSession(_ session: Session, dataTask: DataTask, didReceive data: Data) { body.withLock { $0.append(data) } }

    func urlSession(_ session: Session, task: SessionTask, didCompleteWithError error: TransferError?) {
        let text = error.map { "error \($0.code)" } ?? String(decoding: body.withLock { $0 }, as: UTF8.self)
        done.withLock { $0 = text }
    }
}
