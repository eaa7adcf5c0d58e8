// Counts requests per path, so tests can prove that a resume did not send a second request, and keeps the
// latest in arrival order, so they can prove which of several waiting requests went first.
import NIOConcurrencyHelpers

/// NIO's lock is a pthread mutex, which ThreadSanitizer sees (Synchronization's Mutex is not, on Linux).
final class RequestLog: Sendable {
    private let counts = NIOLockedValueBox<[String: Int]>([:])
    private let arrivals = NIOLockedValueBox<[String]>([])
    private static let keptArrivals = 4096

    func record(_ path: String) {
        counts.withLockedValue { $0[path, default: 0] += 1 }
        arrivals.withLockedValue { list in
            if list.count == 2 * Self.keptArrivals { list.removeFirst(Self.keptArrivals) }
            list.append(path)
        }
    }

    func count(_ path: String) -> Int { counts.withLockedValue { $0[path] ?? 0 } }

    /// The paths containing `text` among the latest few thousand requests, in the order they arrived.
    func arrived(containing text: String) -> [String] { arrivals.withLockedValue { $0.filter { $0.contains(text) } } }
}
