// Download tasks against the scenario server: the file, its removal, becomeDownload, live conversion.
import Foundation
import SluiceEngine
import SluiceScenarioServer
import Synchronization
import SluiceLock
import Testing

@Suite struct DownloadTaskTests {
    @Test func downloadWritesTheWholeBodyAndRemovesTheFileAfterwards() async throws {
        let server = try Servers.shared()
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let recorder = DownloadRecorder()
        let log = EventLog()
        let session = downloadSession(recorder, directory: dir, log: log)
        defer { session.finishTasksAndInvalidate() }
        let size = 3_000_000
        let task = session.downloadTask(with: server.url("/bytes/\(size)"))
        #expect(task.state == .suspended)
        task.resume()
        guard await recorder.waitForCompletion() else { return }
        let s = recorder.snapshot
        #expect(s.error == nil)
        #expect(s.fileBody == patternBytes(count: size))
        #expect(s.finishedPath?.hasPrefix(dir.path) == true)
        #expect(s.calls.filter { $0 == "finished" }.count == 1)
        #expect(s.calls.suffix(2) == ["finished", "complete"])
        #expect(s.writes.last?.total == Int64(size))
        #expect(s.writes.last?.expected == Int64(size))
        #expect(s.writes.map(\.bytes).reduce(0, +) == Int64(size))
        #expect(task.countOfBytesWritten == Int64(size))
        #expect(dir.entries.isEmpty, "the engine removes the file once the delegate returns")
        #expect(log.names.contains("didFinishDownloadingTo"))
        #expect(log.names.last == "didCompleteWithError")
        // A download task's delegate is never asked about its response (URLSession's is not either): no
        // disposition tells of a call that did not happen.
        #expect(log.names.contains("didReceiveResponse") && !log.names.contains("disposition"), "\(log.names)")
    }

    /// Nobody is asked about a download's response, so its bytes flow without waiting for the delegate queue: a
    /// busy queue (a UI's, folding thousands of events) held every download after its head until the queue came
    /// round to saying "allow".
    @Test func aDownloadsBytesFlowWhileTheDelegateQueueIsBusy() async throws {
        let server = try Servers.shared()
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let recorder = DownloadRecorder()
        let log = EventLog()
        let session = downloadSession(recorder, directory: dir, log: log)
        defer { session.finishTasksAndInvalidate() }
        let busy = DispatchSemaphore(value: 0)
        recorder.queue.async { busy.wait() }
        let size = 300_000
        let task = session.downloadTask(with: server.url("/bytes/\(size)"))
        task.resume()
        let flowed = await eventually { task.countOfBytesReceived == Int64(size) }
        let seen = task.countOfBytesReceived
        busy.signal()
        #expect(flowed, "the body waited for the delegate queue: \(seen) of \(size) bytes")
        guard await recorder.waitForCompletion() else { return }
        let s = recorder.snapshot
        #expect(s.error == nil)
        #expect(s.fileBody == patternBytes(count: size))
        // The response is still told first, before any progress.
        let names = log.names.filter { $0 == "didReceiveResponse" || $0 == "didWriteData" }
        #expect(names.first == "didReceiveResponse" && names.dropFirst().allSatisfy { $0 == "didWriteData" }, "\(log.names)")
    }

    @Test func aCancelledDownloadLeavesNoFile() async throws {
        let server = try Servers.shared()
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let recorder = DownloadRecorder()
        let session = downloadSession(recorder, directory: dir)
        defer { session.finishTasksAndInvalidate() }
        // Held after its first chunk, never let go: the cancel meets it under way however late the test runs (an
        // hour's timeout, not the default 60 s without data, which a starved run under ThreadSanitizer once passed).
        let url = server.url("/drip?bytes=2000000&chunk=1000&interval=20&gate=\(UUID().uuidString)")
        let task = session.downloadTask(with: Request(url: url, timeoutInterval: 3600))
        task.resume()
        #expect(await eventually { task.countOfBytesWritten > 0 })
        #expect(dir.entries.count == 1)
        task.cancel()
        guard await recorder.waitForCompletion() else { return }
        #expect(recorder.snapshot.error?.code == .cancelled)
        #expect(recorder.snapshot.error?.resumeData == nil)
        #expect(dir.entries.isEmpty)
    }

    @Test func aMissingDownloadDirectoryIsAClearError() async throws {
        let server = try Servers.shared()
        let recorder = DownloadRecorder()
        var configuration = SessionConfiguration.default
        configuration.downloadDirectory = "/nonexistent/sluice"
        let session = Session(configuration: configuration, delegate: recorder, delegateQueue: recorder.queue)
        defer { session.finishTasksAndInvalidate() }
        session.downloadTask(with: server.url("/bytes/100")).resume()
        guard await recorder.waitForCompletion() else { return }
        let error = recorder.snapshot.error
        #expect(error?.code == .cannotWriteToFile)
        #expect(error?.message.contains("/nonexistent/sluice") == true)
    }

    @Test func becomeDownloadAtTheResponseContinuesTheSameRequest() async throws {
        let server = try Servers.shared()
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let recorder = DownloadRecorder(plan: { _ in .becomeDownload })
        let log = EventLog()
        let session = downloadSession(recorder, directory: dir, log: log)
        defer { session.finishTasksAndInvalidate() }
        let path = "/bytes/2000000?n=\(UUID().uuidString)"
        let task = session.dataTask(with: server.url(path))
        task.resume()
        guard await recorder.waitForCompletion() else { return }
        let s = recorder.snapshot
        #expect(s.error == nil)
        #expect(s.dataBody.isEmpty, "no byte reaches the data delegate after becomeDownload")
        #expect(s.became.count == 1)
        #expect(s.became.first?.from == task.taskIdentifier)
        #expect(s.became.first?.to != task.taskIdentifier)
        #expect(s.completedTask == s.became.first?.to, "the download task reports the completion")
        #expect(s.completions == 1)
        #expect(s.fileBody == patternBytes(count: 2_000_000))
        #expect(server.requestCount(path) == 1)
        #expect(task.state == .completed)
        let names = log.names
        #expect(names.contains("didBecomeDownloadTask"))
        if let became = names.firstIndex(of: "didBecomeDownloadTask"), let finished = names.firstIndex(of: "didFinishDownloadingTo") {
            #expect(became < finished)
        }
        #expect(dir.entries.isEmpty)
    }

    @Test func aRunningDataTaskConvertsWithoutLosingOrRepeatingAByte() async throws {
        let server = try Servers.shared()
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let recorder = DownloadRecorder()
        recorder.convertAfter = 40_000
        let session = downloadSession(recorder, directory: dir)
        defer { session.finishTasksAndInvalidate() }
        let size = 400_000
        let path = "/drip?bytes=\(size)&chunk=8000&interval=2&n=\(UUID().uuidString)"
        session.dataTask(with: server.url(path)).resume()
        guard await recorder.waitForCompletion() else { return }
        let s = recorder.snapshot
        #expect(s.error == nil)
        #expect(s.became.count == 1)
        #expect(s.dataBody.count >= 40_000)
        #expect(s.dataBody.count < size, "the conversion happened before the end")
        #expect(s.fileBody == patternBytes(count: size), "the data task's bytes first, then the rest")
        #expect(server.requestCount(path) == 1)
    }

    @Test func withoutThePrefixTheFileHoldsTheRestOfTheBody() async throws {
        let server = try Servers.shared()
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let recorder = DownloadRecorder()
        recorder.convertAfter = 30_000
        recorder.prepend = false
        let session = downloadSession(recorder, directory: dir)
        defer { session.finishTasksAndInvalidate() }
        let size = 300_000
        session.dataTask(with: server.url("/drip?bytes=\(size)&chunk=6000&interval=2")).resume()
        guard await recorder.waitForCompletion() else { return }
        let s = recorder.snapshot
        let received = s.dataBody.count
        #expect(s.fileBody == patternBytes(offset: Int64(received), count: size - received))
        #expect(s.writes.last?.expected == Int64(size - received) || s.writes.last?.expected == -1)
    }

    @Test func aMultipartPartBecomesADownloadOfThatPart() async throws {
        let server = try Servers.shared()
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let recorder = DownloadRecorder(plan: { $0.part == 1 ? .becomeDownload : .allow })
        recorder.prepend = false  // part 0's bytes are not part of this file
        let session = downloadSession(recorder, directory: dir)
        defer { session.finishTasksAndInvalidate() }
        session.dataTask(with: server.url("/multipart?parts=3&size=5000&interval=10")).resume()
        guard await recorder.waitForCompletion() else { return }
        let s = recorder.snapshot
        #expect(s.error == nil)
        #expect(s.fileBody == Data(ScenarioHandlerText.part(1, size: 5000).utf8))
        #expect(s.dataBody == Data(ScenarioHandlerText.part(0, size: 5000).utf8))
    }

    @Test func asyncDownloadHandsTheFileToTheCaller() async throws {
        let server = try Servers.shared()
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let session = downloadSession(nil, directory: dir)
        defer { session.finishTasksAndInvalidate() }
        let (location, response) = try await session.download(from: server.url("/bytes/70000"))
        #expect(response.statusCode == 200)
        #expect(FileManager.default.contents(atPath: location.path) == patternBytes(count: 70_000))
        try FileManager.default.removeItem(atPath: location.path)
        await #expect(throws: TransferError.self) { try await session.download(from: ScenarioServer.refusedURL()) }
        #expect(dir.entries.isEmpty)
    }

    @Test func completionHandlerDownloadRemovesTheFileAfterTheHandler() async throws {
        let server = try Servers.shared()
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let session = downloadSession(nil, directory: dir)
        defer { session.finishTasksAndInvalidate() }
        let seen = Locked<Data?>(nil)
        let done = Locked(false)
        session.downloadTask(with: Request(url: server.url("/bytes/5000"))) { location, _, _ in
            seen.withLock { $0 = location.flatMap { FileManager.default.contents(atPath: $0.path) } }
            done.withLock { $0 = true }
        }.resume()
        #expect(await eventually { done.withLock { $0 } })
        #expect(seen.withLock { $0 } == patternBytes(count: 5000))
        #expect(await eventually { dir.entries.isEmpty })
    }
}

/// The multipart scenario's part bodies, as the server makes them.
enum ScenarioHandlerText {
    static func part(_ index: Int, size: Int) -> String {
        String(repeating: String(UnicodeScalar(UInt8(97 + index % 26))), count: size)
    }
}
