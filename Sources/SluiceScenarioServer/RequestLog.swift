// Counts requests per path, and when they came, so tests can prove that a resume did not send a second request
// and how long a retry waited; keeps the latest in arrival order, so they can prove which of several waiting
// requests went first.
import NIOConcurrencyHelpers
#if canImport(Glibc)
import Glibc
#endif

/// NIO's lock is a pthread mutex, which ThreadSanitizer sees (Synchronization's Mutex is not, on Linux).
final class RequestLog: Sendable {
    private let counts = NIOLockedValueBox<[String: Int]>([:])
    private let arrivals = NIOLockedValueBox<[String]>([])
    private static let keptArrivals = 4096
    private let times = NIOLockedValueBox<[String: [Double]]>([:])

    func record(_ path: String) {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let seconds = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
        counts.withLockedValue { $0[path, default: 0] += 1 }
        times.withLockedValue { $0[path, default: []].append(seconds) }
        arrivals.withLockedValue { list in
            if list.count == 2 * Self.keptArrivals { list.removeFirst(Self.keptArrivals) }
            list.append(path)
        }
    }

    func count(_ path: String) -> Int { counts.withLockedValue { $0[path] ?? 0 } }

    /// The paths containing `text` among the latest few thousand requests, in the order they arrived.
    func arrived(containing text: String) -> [String] { arrivals.withLockedValue { $0.filter { $0.contains(text) } } }

    /// When each request for this path and query arrived, in seconds of the monotonic clock, oldest first.
    func arrivals(_ path: String) -> [Double] { times.withLockedValue { $0[path] ?? [] } }
}
