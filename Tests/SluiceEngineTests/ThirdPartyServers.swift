// nginx (TLS, HTTP/2), tinyproxy and dante on 127.0.0.1, started once per test run by scripts/test-servers with
// certificates it makes with openssl, and stopped by that script when this process exits.
import Dispatch
import Foundation
import SluiceEngine
import SluiceLock
import Testing

struct ThirdPartyServers: Sendable {
    let directory: String
    /// The test CA's certificate; the system's store does not hold it.
    let caFile: String
    let tlsPort: Int
    let expiredPort: Int
    let wrongHostPort: Int
    let selfSignedPort: Int
    let h2cPort: Int
    let proxyPort: Int
    let authProxyPort: Int
    let socksPort: Int
    let accessLog: String
    let socksLog: String
    let proxyLog: String

    static let proxyUser = "sluice"
    static let proxyPassword = "proxy-secret"

    private static let starting = Locked<Task<ThirdPartyServers, any Error>?>(nil)

    struct ServersUnavailable: Error, CustomStringConvertible {
        let description: String
    }

    /// The servers every test shares; started on first use (about half a second: certificates, then four
    /// programs). Waiting suspends instead of blocking: a blocked thread of the two-thread pool would stall every
    /// other test, and the ones that time a transfer would fail.
    static func shared() async throws -> ThirdPartyServers {
        let task = starting.withLock { task in
            if let task { return task }
            let started = Task { try await start() }
            task = started
            return started
        }
        return try await task.value
    }

    private static func start() async throws -> ThirdPartyServers {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/test-servers").path
        let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        let directory = base + "/sluice-test-servers-\(getpid())"  // removed by the script when this process ends
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script, directory, String(getpid()), "--remove"]
        // Not this process's output: the script outlives it by a moment, and a test runner reading the output
        // waits for every writer to close it.
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw ServersUnavailable(description: "cannot run \(script): \(error)")
        }
        let deadline = DispatchTime.now().uptimeNanoseconds + 60_000_000_000
        while DispatchTime.now().uptimeNanoseconds < deadline {
            if let failure = try? String(contentsOfFile: directory + "/failed", encoding: .utf8) {
                throw ServersUnavailable(description: "scripts/test-servers: " + failure)
            }
            if let text = try? String(contentsOfFile: directory + "/servers.env", encoding: .utf8) {
                return try parse(text, directory: directory)
            }
            if !process.isRunning { throw ServersUnavailable(description: "scripts/test-servers exited early") }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        throw ServersUnavailable(description: "scripts/test-servers did not start within 60 s")
    }

    private static func parse(_ text: String, directory: String) throws(ServersUnavailable) -> ThirdPartyServers {
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            values[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        func port(_ name: String) throws(ServersUnavailable) -> Int {
            guard let value = values[name].flatMap({ Int($0) }) else {
                throw ServersUnavailable(description: "servers.env has no \(name)")
            }
            return value
        }
        func path(_ name: String) throws(ServersUnavailable) -> String {
            guard let value = values[name] else { throw ServersUnavailable(description: "servers.env has no \(name)") }
            return value
        }
        return ThirdPartyServers(
            directory: directory, caFile: try path("CA"), tlsPort: try port("TLS_PORT"),
            expiredPort: try port("EXPIRED_PORT"), wrongHostPort: try port("WRONG_HOST_PORT"),
            selfSignedPort: try port("SELF_SIGNED_PORT"), h2cPort: try port("H2C_PORT"), proxyPort: try port("PROXY_PORT"),
            authProxyPort: try port("AUTH_PROXY_PORT"), socksPort: try port("SOCKS_PORT"),
            accessLog: try path("ACCESS_LOG"), socksLog: try path("SOCKS_LOG"), proxyLog: try path("PROXY_LOG"))
    }

    func https(_ port: Int, _ path: String, host: String = "127.0.0.1") -> URL {
        URL(string: "https://\(host):\(port)\(path)")!  // the tests' own literal URLs
    }

    /// nginx's connection serial numbers for the requests whose URI contains `token`, in log order.
    func connections(for token: String) -> [String] {
        let log = (try? String(contentsOfFile: accessLog, encoding: .utf8)) ?? ""
        return log.split(separator: "\n").filter { $0.contains(token) }.compactMap { $0.split(separator: " ").first.map(String.init) }
    }

    static func read(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
}

/// A configuration that trusts the test CA.
func trustingTestCA(_ servers: ThirdPartyServers) -> SessionConfiguration {
    var configuration = SessionConfiguration.default
    configuration.caFile = servers.caFile
    return configuration
}

/// Runs `count` data tasks created first and then resumed together (so that none finds a connection already
/// open), and returns each one's error and metrics once all have completed.
func runTogether(_ urls: [URL], configuration: SessionConfiguration) async -> [(error: TransferError?, metrics: TaskMetrics?)] {
    let log = EventLog()
    let session = Session(configuration: configuration, eventMonitor: log.monitor)
    let errors = Locked<[Int: TransferError?]>([:])
    let tasks = urls.enumerated().map { index, url in
        session.dataTask(with: url) { _, _, error in
            _ = errors.withLock { $0.updateValue(error, forKey: index) }
        }
    }
    for task in tasks { task.resume() }
    let finished = await eventually(30) { errors.withLock { $0.count } == urls.count }
    if !finished { Issue.record("\(urls.count - errors.withLock { $0.count }) tasks did not complete within 30 s") }
    session.finishTasksAndInvalidate()
    let records = log.records
    return tasks.enumerated().map { index, task in
        let metrics = records.lazy.filter { $0.taskIdentifier == task.taskIdentifier }.compactMap { record -> TaskMetrics? in
            if case .didFinishCollectingMetrics(let m) = record.event { m } else { nil }
        }.first
        return (errors.withLock { $0[index] ?? nil }, metrics)
    }
}

/// A token for the URLs of one test, so that its lines in nginx's shared access log are its own.
func uniqueToken() -> String { "t" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased() }

/// One GET in a session of its own with `configuration`, its result kept (the TLS and proxy tests read both sides).
func fetch(_ url: URL, _ configuration: SessionConfiguration) async -> Result<(Data, Response), TransferError> {
    let session = Session(configuration: configuration)
    defer { session.finishTasksAndInvalidate() }
    do {
        return .success(try await session.data(for: Request(url: url)))
    } catch {
        return .failure(error)
    }
}
