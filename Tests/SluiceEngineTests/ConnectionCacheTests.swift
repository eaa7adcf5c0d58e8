// Idle connections outlive a quiet moment: a queue whose next tasks start only after the last ones ended (the UI
// starts them from the delegate queue) reuses the connections they left instead of opening new ones.
import Foundation
import SluiceEngine
import SluiceLock
import Testing

@Suite struct ConnectionCacheTests {
    /// Eight HTTP/1.1 requests to one host at once, then four one after another, then eight at once again. libcurl
    /// keeps at most four idle connections for each transfer it has in hand when a connection comes back: each of
    /// the lone requests closed one of the first eight, and the last eight opened them again (12 in all).
    @Test func connectionsLeftIdleByABusyMomentAreKeptForTheNext() async throws {
        let servers = try await ThirdPartyServers.shared()
        let token = uniqueToken()
        var configuration = trustingTestCA(servers)
        configuration.httpVersion = .http1_1
        configuration.httpMaximumConnectionsPerHost = 8
        let session = Session(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        var request = 0
        func run(_ count: Int) async {
            let ended = Locked(0)
            let failures = Locked<[String]>([])
            let tasks = (0..<count).map { _ in
                request += 1
                return session.dataTask(with: servers.https(servers.tlsPort, "/small/f\(request % 100)?\(token)-\(request)")) { _, _, error in
                    if let error { failures.withLock { $0.append(error.message) } }
                    ended.withLock { $0 += 1 }
                }
            }
            for task in tasks { task.resume() }
            #expect(await eventually(30) { ended.withLock { $0 } == count }, "\(count) requests did not end")
            #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        }
        await run(8)
        for _ in 0..<4 { await run(1) }
        await run(8)
        // At most eight: a loaded machine may end a first request before the eighth starts, which then reuses it.
        let opened = Set(servers.connections(for: token)).count
        #expect(opened <= 8, "nginx saw \(opened) connections for 20 requests, at most 8 at a time")
    }
}
