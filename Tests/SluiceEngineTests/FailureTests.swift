// Every misbehaving scenario ends in the right error, with the partial bytes reported, and nothing hangs.
import Foundation
import SluiceEngine
import SluiceScenarioServer
import Testing

@Suite struct FailureTests {
    func run(_ url: URL, configure: (inout SessionConfiguration) -> Void = { _ in })
        async -> (Recorder, DataTask)? {
        var configuration = SessionConfiguration.default
        configure(&configuration)
        let recorder = Recorder()
        let session = Session(configuration: configuration, delegate: recorder, delegateQueue: recorder.queue)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: url)
        task.resume()
        guard await recorder.waitForCompletion() else { return nil }
        #expect(recorder.snapshot.completions == 1)
        #expect(recorder.snapshot.calls.last == "complete")
        session.finishTasksAndInvalidate()
        return (recorder, task)
    }

    @Test func connectionClosedMidBody() async throws {
        let server = try Servers.shared()
        guard let (r, task) = await run(server.url("/drop?after=70000")) else { return }
        #expect(r.snapshot.error?.code == .networkConnectionLost)
        #expect(r.snapshot.body == patternBytes(count: 70_000))  // what came is kept and correct
        #expect(task.countOfBytesReceived == 70_000)
    }

    @Test func contentLengthLongerThanTheBody() async throws {
        let server = try Servers.shared()
        guard let (r, task) = await run(server.url("/short?bytes=50000&after=1234")) else { return }
        #expect(r.snapshot.error?.code == .networkConnectionLost)
        #expect(r.snapshot.error?.message.isEmpty == false)
        #expect(task.countOfBytesReceived == 1234)
        #expect(task.countOfBytesExpectedToReceive == 50_000)
    }

    @Test func manyLargeHeadersAreFine() async throws {
        let server = try Servers.shared()
        guard let (r, _) = await run(server.url("/huge-headers?size=200000")) else { return }
        #expect(r.snapshot.error == nil)
        #expect(r.snapshot.responses.first?.headers.count ?? 0 >= 25)
    }

    @Test func oneHeaderLineTooLargeIsABadResponse() async throws {
        let server = try Servers.shared()
        guard let (r, _) = await run(server.url("/huge-headers?size=300000&line=1")) else { return }
        #expect(r.snapshot.error?.code == .badServerResponse, "\(String(describing: r.snapshot.error))")
        #expect(r.snapshot.responses.isEmpty)
    }

    @Test func bytesThatAreNotHTTP() async throws {
        let server = try Servers.shared()
        guard let (r, _) = await run(server.garbageURL) else { return }
        #expect(r.snapshot.error?.code == .badServerResponse)
    }

    @Test func refusedPort() async throws {
        guard let (r, task) = await run(ScenarioServer.refusedURL()) else { return }
        #expect(r.snapshot.error?.code == .cannotConnectToHost)
        #expect(r.snapshot.error?.curlCode == 7)
        #expect(r.snapshot.error?.message.contains("127.0.0.1") == true)
        #expect(task.error?.code == .cannotConnectToHost)
    }

    @Test func inactivityTimeout() async throws {
        let server = try Servers.shared()
        guard let (r, _) = await run(server.url("/stall"), configure: { $0.timeoutIntervalForRequest = 0.5 }) else { return }
        #expect(r.snapshot.error?.code == .timedOut)
        #expect(r.snapshot.responses.count <= 1)
    }

    /// Bytes arriving more often than the inactivity timeout keep it away, though the whole body takes longer than
    /// it: the callbacks only flag that bytes came, and the loop's timeout check stamps the time.
    @Test func bytesThatKeepComingKeepTheInactivityTimeoutAway() async throws {
        let server = try Servers.shared()
        guard let (r, task) = await run(server.url("/drip?bytes=700&chunk=100&interval=250"),
                                        configure: { $0.timeoutIntervalForRequest = 1 }) else { return }
        #expect(r.snapshot.error == nil)
        #expect(task.countOfBytesReceived == 700)
    }

    /// curl's --connect-timeout: a connection that cannot be made fails after the connect timeout, not the
    /// request's (an hour here, so only the connect timeout can end the task within the wait). The listener's
    /// accept queue is full, so the kernel drops the task's SYN and its connect waits, as one to a host that never
    /// answers does. No clock is read: a starved run (every test at once under ThreadSanitizer) is slow, not wrong.
    @Test func aConnectionThatCannotBeMadeTimesOutAfterTheConnectTimeout() async throws {
        let listener = try FullListener()
        defer { listener.close() }
        guard let (r, _) = await run(URL(string: "http://127.0.0.1:\(listener.port)/x")!, configure: {
            $0.timeoutIntervalForConnect = 1
            $0.timeoutIntervalForRequest = 3600
        }) else { return }
        #expect(r.snapshot.error?.code == .timedOut, "\(String(describing: r.snapshot.error))")
        // libcurl says "Failed to connect ... Timeout was reached" or, caught in another step, "Connection timeout after".
        #expect(r.snapshot.error?.message.lowercased().contains("connect") == true, "\(String(describing: r.snapshot.error))")
        #expect(r.snapshot.responses.isEmpty)
    }

    @Test func noAnswerAtAllTimesOut() async throws {
        let server = try Servers.shared()
        guard let (r, _) = await run(server.url("/silent"), configure: { $0.timeoutIntervalForRequest = 0.5 }) else { return }
        #expect(r.snapshot.error?.code == .timedOut)
        #expect(r.snapshot.responses.isEmpty)
    }

    @Test func resourceTimeoutCountsTheWholeTask() async throws {
        let server = try Servers.shared()
        // Bytes keep coming (no inactivity), but the task as a whole takes too long.
        guard let (r, task) = await run(server.url("/drip?bytes=100000&chunk=100&interval=20"),
                                        configure: { $0.timeoutIntervalForResource = 1.5 }) else { return }
        #expect(r.snapshot.error?.code == .timedOut)
        #expect(task.countOfBytesReceived > 0)
        #expect(task.countOfBytesReceived < 100_000)
    }

    @Test func tooManyRedirects() async throws {
        let server = try Servers.shared()
        guard let (r, _) = await run(server.url("/redirect/5"), configure: { $0.maximumRedirects = 2 }) else { return }
        #expect(r.snapshot.error?.code == .tooManyRedirects)
    }

    @Test func unsupportedScheme() async throws {
        guard let (r, _) = await run(URL(string: "gopher://127.0.0.1/x")!) else { return }
        #expect(r.snapshot.error?.code == .unsupportedURL)
    }

    @Test func httpWithoutHost() async throws {
        guard let (r, _) = await run(URL(string: "http:///nohost")!) else { return }
        #expect(r.snapshot.error?.code == .badURL)
    }

    @Test func unknownHost() async throws {
        guard let (r, _) = await run(URL(string: "http://no-such-host.invalid/")!) else { return }
        #expect(r.snapshot.error?.code == .cannotFindHost)
    }

    @Test func missingFile() async throws {
        guard let (r, _) = await run(URL(fileURLWithPath: "/nonexistent/sluice-\(UUID().uuidString)")) else { return }
        #expect(r.snapshot.error?.code == .fileDoesNotExist)
    }

    @Test func malformedDataURL() async throws {
        guard let (r, _) = await run(URL(string: "data:text/plain;base64")!) else { return }
        #expect(r.snapshot.error?.code == .badURL)
    }
}

/// A TCP listener on 127.0.0.1 that accepts nothing and whose accept queue is already full (backlog 0, two
/// connections waiting): a further connect gets no answer until the listener closes.
final class FullListener {
    let port: Int
    private let fd: Int32
    private var waiting: [Int32] = []

    init() throws {
        let listening = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listening, $0, size) }
        }
        var length = size
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listening, $0, &length) }
        }
        guard listening >= 0, bound == 0, named == 0, listen(listening, 0) == 0 else { throw CocoaError(.fileReadUnknown) }
        fd = listening
        port = Int(UInt16(bigEndian: address.sin_port))
        for _ in 0..<2 {
            let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, size) }
            }
            waiting.append(client)
        }
    }

    func close() {
        for client in waiting { Glibc.close(client) }
        Glibc.close(fd)
    }
}
