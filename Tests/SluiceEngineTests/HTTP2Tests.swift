// HTTP/2 against nginx on 127.0.0.1: simultaneous tasks to one host share one connection (seen in the task
// metrics and in nginx's own log), the version preference is obeyed, and the connection limit per host holds.
import Foundation
import SluiceEngine
import SluiceLock
import Testing

@Suite struct HTTP2Tests {
    @Test func simultaneousTasksToOneHostShareOneConnection() async throws {
        let servers = try await ThirdPartyServers.shared()
        let token = uniqueToken()
        let urls = (0..<20).map { servers.https(servers.tlsPort, "/small/f\($0)?\(token)") }
        let results = await runTogether(urls, configuration: trustingTestCA(servers))
        #expect(results.allSatisfy { $0.error == nil }, "\(results.compactMap(\.error))")
        let transactions = results.compactMap { $0.metrics?.transactions.first }
        #expect(transactions.count == 20)
        #expect(transactions.allSatisfy { $0.networkProtocol == "h2" })
        #expect(transactions.filter { !$0.isReusedConnection }.count == 1, "one connection opened, the rest reused it")
        #expect(Set(servers.connections(for: token)).count == 1, "nginx saw \(servers.connections(for: token))")
    }

    /// A finished transfer's easy handle is reset and reused; after multiplexed HTTP/2 transfers libcurl 7.88 keeps
    /// the handle's receive buffer and refuses CURLOPT_BUFFERSIZE on it, which failed every later task of the session.
    @Test func oneSessionRunsRoundAfterRoundOfMultiplexedTasks() async throws {
        let servers = try await ThirdPartyServers.shared()
        let session = Session(configuration: trustingTestCA(servers))
        defer { session.finishTasksAndInvalidate() }
        for round in 0..<3 {
            let failures = Locked<[String]>([])
            let done = Locked(0)
            let tasks = (0..<10).map { i in
                session.dataTask(with: servers.https(servers.tlsPort, "/small/f\(i)?round=\(round)")) { data, _, error in
                    if let error { failures.withLock { $0.append("\(error)") } }
                    else if data?.count != 1024 { failures.withLock { $0.append("\(data?.count ?? 0) bytes") } }
                    done.withLock { $0 += 1 }
                }
            }
            for task in tasks { task.resume() }
            #expect(await eventually(30) { done.withLock { $0 } == 10 })
            #expect(failures.withLock { $0 }.isEmpty, "round \(round): \(failures.withLock { $0 })")
        }
    }

    /// libcurl 7.88 (Debian 12's) breaks a reused prior-knowledge connection (curl issue 10634, fixed in 8.0), so
    /// there each request has its own connection; later versions share one.
    @Test func cleartextHTTP2WithPriorKnowledge() async throws {
        let servers = try await ThirdPartyServers.shared()
        let token = uniqueToken()
        var configuration = SessionConfiguration.default
        configuration.httpVersion = .http2PriorKnowledge
        for round in 0..<2 {  // the second round would reuse the first's connections
            let urls = (0..<5).map { URL(string: "http://127.0.0.1:\(servers.h2cPort)/small/f\($0)?\(token)-\(round)")! }
            let results = await runTogether(urls, configuration: configuration)
            #expect(results.allSatisfy { $0.error == nil }, "\(results.compactMap(\.error))")
            #expect(results.compactMap { $0.metrics?.transactions.first?.networkProtocol } == Array(repeating: "h2", count: 5))
        }
    }

    @Test func http1_1IsAskedForWhenPreferred() async throws {
        let servers = try await ThirdPartyServers.shared()
        var configuration = trustingTestCA(servers)
        configuration.httpVersion = .http1_1
        let results = await runTogether([servers.https(servers.tlsPort, "/small/f1")], configuration: configuration)
        #expect(results.first?.error == nil)
        #expect(results.first?.metrics?.transactions.first?.networkProtocol == "http/1.1")
    }

    @Test func theDefaultIsHTTP2OverTLSAndHTTP1_1InCleartext() async throws {
        let servers = try await ThirdPartyServers.shared()
        let tls = await runTogether([servers.https(servers.tlsPort, "/small/f1")], configuration: trustingTestCA(servers))
        #expect(tls.first?.metrics?.transactions.first?.networkProtocol == "h2")
        // nginx's h2c port speaks only HTTP/2: an HTTP/1.1 request there gets no HTTP/1.1 answer.
        let scenario = try Servers.shared()
        let plain = await runTogether([scenario.url("/bytes/10")], configuration: .default)
        #expect(plain.first?.metrics?.transactions.first?.networkProtocol == "http/1.1")
    }

    /// Six slow HTTP/1.1 transfers at once with two connections allowed: two connections carry all six, one after
    /// another; with six allowed, more than two are opened (so the limit, not chance, made the difference).
    @Test func theConnectionLimitPerHostHolds() async throws {
        let servers = try await ThirdPartyServers.shared()
        for (limit, expectMany) in [(2, false), (6, true)] {
            let token = uniqueToken()
            var configuration = trustingTestCA(servers)
            configuration.httpVersion = .http1_1
            configuration.httpMaximumConnectionsPerHost = limit
            let urls = (0..<6).map { servers.https(servers.tlsPort, "/slow/f64k?\(token)-\($0)") }
            let results = await runTogether(urls, configuration: configuration)
            #expect(results.allSatisfy { $0.error == nil }, "\(results.compactMap(\.error))")
            let opened = Set(servers.connections(for: token)).count
            let fresh = results.compactMap { $0.metrics?.transactions.first }.filter { !$0.isReusedConnection }.count
            if expectMany {
                #expect(opened > 2, "with \(limit) allowed, nginx saw \(opened) connections")
            } else {
                #expect(opened == 2, "with \(limit) allowed, nginx saw \(opened) connections")
                #expect(fresh == 2, "the metrics show \(fresh) new connections")
            }
        }
    }
}
