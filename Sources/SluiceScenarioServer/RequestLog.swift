// Counts requests per path, and when they came, so tests can prove that a resume did not send a second request
// and how long a retry waited.
import NIOConcurrencyHelpers
#if canImport(Glibc)
import Glibc
#endif

/// NIO's lock is a pthread mutex, which ThreadSanitizer sees (Synchronization's Mutex is not, on Linux).
final class RequestLog: Sendable {
    private let counts = NIOLockedValueBox<[String: Int]>([:])
    private let times = NIOLockedValueBox<[String: [Double]]>([:])

    func record(_ path: String) {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let seconds = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
        counts.withLockedValue { $0[path, default: 0] += 1 }
        times.withLockedValue { $0[path, default: []].append(seconds) }
    }

    func count(_ path: String) -> Int { counts.withLockedValue { $0[path] ?? 0 } }

    /// When each request for this path and query arrived, in seconds of the monotonic clock, oldest first.
    func arrivals(_ path: String) -> [Double] { times.withLockedValue { $0[path] ?? [] } }
}
