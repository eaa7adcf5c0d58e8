// Counts requests per path, so tests can prove that a resume did not send a second request.
import NIOConcurrencyHelpers

/// NIO's lock is a pthread mutex, which ThreadSanitizer sees (Synchronization's Mutex is not, on Linux).
final class RequestLog: Sendable {
    private let counts = NIOLockedValueBox<[String: Int]>([:])

    func record(_ path: String) { counts.withLockedValue { $0[path, default: 0] += 1 } }
    func count(_ path: String) -> Int { counts.withLockedValue { $0[path] ?? 0 } }
}
