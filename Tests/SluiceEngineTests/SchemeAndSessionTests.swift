// Schemes other than http, requests with headers and bodies, redirects, ranges, session-level APIs, async APIs.
import Foundation
import SluiceEngine
import SluiceScenarioServer
import Synchronization
import SluiceLock
import Testing

@Suite struct SchemeAndSessionTests {
    @Test func fileURLStreamsTheFile() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-\(UUID().uuidString).bin")
        let content = patternBytes(count: 700_000)
        try content.write(to: path)
        defer { try? FileManager.default.removeItem(at: path) }
        let recorder = Recorder()
        let session = Session(delegate: recorder, delegateQueue: recorder.queue)
        defer { session.finishTasksAndInvalidate() }
        session.dataTask(with: path).resume()
        guard await recorder.waitForCompletion() else { return }
        let s = recorder.snapshot
        #expect(s.error == nil)
        #expect(s.body == content)
        #expect(s.responses.first?.statusCode == nil)
        #expect(s.responses.first?.expectedContentLength == 700_000)
    }

    @Test func dataURL() async throws {
        let (data, response) = try await Session.shared.data(from: URL(string: "data:text/plain;base64,aGVsbG8=")!)
        #expect(data == Data("hello".utf8))
        #expect(response.mimeType == "text/plain")
    }

    @Test func redirectsAreFollowedAndTheCurrentRequestUpdated() async throws {
        let server = try Servers.shared()
        let recorder = Recorder()
        let session = Session(delegate: recorder, delegateQueue: recorder.queue)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: server.url("/redirect/3"))
        task.resume()
        guard await recorder.waitForCompletion() else { return }
        #expect(recorder.snapshot.body == patternBytes(count: 16))
        #expect(task.currentRequest.url.path == "/bytes/16")
        #expect(task.originalRequest.url.path == "/redirect/3")
        #expect(task.response?.statusCode == 200)
    }

    @Test func rangeRequest() async throws {
        let server = try Servers.shared()
        let request = Request(url: server.url("/bytes/10000"), headers: ["Range": "bytes=2500-"])
        let (data, response) = try await Session.shared.data(for: request)
        #expect(response.statusCode == 206)
        #expect(response.headers["Content-Range"] == "bytes 2500-9999/10000")
        #expect(data == patternBytes(offset: 2500, count: 7500))
    }

    @Test func headersFromConfigurationAndRequest() async throws {
        let server = try Servers.shared()
        var configuration = SessionConfiguration.default
        configuration.httpAdditionalHeaders = ["X-From-Config": "c", "X-Both": "config"]
        let session = Session(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        let request = Request(url: server.url("/headers"), headers: ["X-Both": "request"])
        let (data, _) = try await session.data(for: request)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("X-From-Config: c"))
        #expect(text.contains("X-Both: request"))
        #expect(!text.contains("X-Both: config"))
    }

    /// A session names itself as URLSession and curl do, unless the request, the configuration or a field with no
    /// value says otherwise.
    @Test func aDefaultUserAgentIsSentUnlessReplacedOrRemoved() async throws {
        let server = try Servers.shared()
        func userAgents(_ configuration: SessionConfiguration, _ headers: HTTPHeaders = [:]) async throws -> [String] {
            let session = Session(configuration: configuration)
            defer { session.finishTasksAndInvalidate() }
            let (data, _) = try await session.data(for: Request(url: server.url("/headers"), headers: headers))
            return String(decoding: data, as: UTF8.self).split(separator: "\n").filter { $0.lowercased().hasPrefix("user-agent:") }.map(String.init)
        }
        #expect(try await userAgents(.default) == ["User-Agent: sluice/" + SluiceVersion.number])
        #expect(try await userAgents(.default, ["User-Agent": "mine/2"]) == ["User-Agent: mine/2"])
        #expect(try await userAgents(.default, ["User-Agent": ""]) == [], "an empty field removes it, as curl's -A ''")
        var configured = SessionConfiguration.default
        configured.httpAdditionalHeaders = ["User-Agent": "configured/3"]
        #expect(try await userAgents(configured) == ["User-Agent: configured/3"])
        var none = SessionConfiguration.default
        none.userAgent = nil
        #expect(try await userAgents(none) == [])
    }

    @Test func postBodyIsSent() async throws {
        let server = try Servers.shared()
        let body = Data((0..<5000).map { UInt8($0 % 251) })
        let (data, response) = try await Session.shared.data(for: Request(url: server.url("/echo"), method: "PUT", body: body))
        #expect(data == body)
        #expect(response.headers["X-Request-Method"] == "PUT")
    }

    @Test func httpErrorStatusIsNotATransferError() async throws {
        let server = try Servers.shared()
        let (data, response) = try await Session.shared.data(from: server.url("/status/404"))
        #expect(response.statusCode == 404)
        #expect(String(decoding: data, as: UTF8.self) == "status 404\n")
    }

    @Test func asyncDataThrowsTheTypedError() async throws {
        do {
            _ = try await Session.shared.data(from: ScenarioServer.refusedURL())
            Issue.record("a refused port must throw")
        } catch {
            #expect(error.code == .cannotConnectToHost)
        }
    }

    @Test func completionHandlerGetsTheBody() async throws {
        let server = try Servers.shared()
        let result = Locked<(Int, Int?)?>(nil)
        let task = Session.shared.dataTask(with: server.url("/bytes/5000")) { data, response, error in
            result.withLock { $0 = (data?.count ?? -1, response?.statusCode) }
        }
        task.resume()
        #expect(await eventually { result.withLock { $0 != nil } })
        #expect(result.withLock { $0?.0 } == 5000)
        #expect(result.withLock { $0?.1 } == 200)
    }

    @Test func bytesPausesTheTransferWhileTheConsumerLags() async throws {
        let server = try Servers.shared()
        var configuration = SessionConfiguration.default
        configuration.maximumBufferedBytes = 1 << 20
        let session = Session(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        // Four times the limit: a byte at a time in a debug build, 16 MiB held one of Swift concurrency's few threads for
        // most of a minute on a two-core machine, and other tests' awaits waited past their deadlines.
        let size = 4 << 20
        let (bytes, response) = try await session.bytes(for: Request(url: server.url("/bytes/\(size)")))
        #expect(response.expectedContentLength == Int64(size))
        let tasks = await session.allTasks
        let task = try #require(tasks.first)
        var count = 0
        var mismatches = 0
        var maxAhead: Int64 = 0
        for try await byte in bytes {
            if byte != ScenarioPattern.byte(at: Int64(count)) { mismatches += 1 }
            count += 1
            if count % (1 << 20) == 0 {
                try await Task.sleep(nanoseconds: 20_000_000)  // a slow consumer
                maxAhead = max(maxAhead, task.countOfBytesReceived - Int64(count))
            }
        }
        #expect(count == size)
        #expect(mismatches == 0)
        // Received but unread bytes stay near the limit: buffered limit plus one gathered chunk and libcurl's buffer.
        #expect(maxAhead < Int64(configuration.maximumBufferedBytes + 2 * configuration.deliveryChunkSize + (1 << 20)))
    }

    @Test func taskDelegateTakesPrecedence() async throws {
        let server = try Servers.shared()
        let sessionRecorder = Recorder()
        let taskRecorder = Recorder(queue: sessionRecorder.queue)
        let session = Session(delegate: sessionRecorder, delegateQueue: sessionRecorder.queue)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: server.url("/bytes/100"))
        task.delegate = taskRecorder
        task.resume()
        guard await taskRecorder.waitForCompletion() else { return }
        #expect(taskRecorder.snapshot.body.count == 100)
        #expect(sessionRecorder.snapshot.calls.isEmpty)
    }

    @Test func finishTasksAndInvalidateWaitsForRunningTasks() async throws {
        let server = try Servers.shared()
        let recorder = Recorder()
        let session = Session(delegate: recorder, delegateQueue: recorder.queue)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: server.url("/drip?bytes=2000&chunk=500&interval=20"))
        task.resume()
        session.finishTasksAndInvalidate()
        let late = session.dataTask(with: server.url("/bytes/10"))
        late.resume()
        #expect(await eventually { recorder.snapshot.invalidated == 1 })
        let s = recorder.snapshot
        #expect(s.calls.last == "invalid")
        #expect(task.state == .completed && task.error == nil)
        #expect(late.error?.code == .sessionInvalidated)
    }

    @Test func invalidateAndCancelCancelsEverything() async throws {
        let server = try Servers.shared()
        let recorder = Recorder()
        let session = Session(delegate: recorder, delegateQueue: recorder.queue)
        defer { session.finishTasksAndInvalidate() }
        // /stall never ends by itself: only the cancel ends these, however slow the machine.
        let tasks = (0..<3).map { i in session.dataTask(with: server.url("/stall?n=\(i)")) }
        tasks.forEach { $0.resume() }
        let all = await session.allTasks
        #expect(all.count == 3)
        session.invalidateAndCancel()
        #expect(await eventually { recorder.snapshot.invalidated == 1 })
        #expect(tasks.allSatisfy { $0.error?.code == .cancelled })
        #expect(recorder.snapshot.completions == 3)
    }
}
