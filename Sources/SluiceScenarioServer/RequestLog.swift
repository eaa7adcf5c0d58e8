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

    /// Returns how many times `path` has now been seen, this time included.
    @discardableResult
    func record(_ path: String) -> Int {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let seconds = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
        times.withLockedValue { $0[path, default: []].append(seconds) }
        arrivals.withLockedValue { list in
            if list.count == 2 * Self.keptArrivals { list.removeFirst(Self.keptArrivals) }
            list.append(path)
        }
        return counts.withLockedValue {
            $0[path, default: 0] += 1
            return $0[path, default: 0]
        }
    }

    func count(_ path: String) -> Int { counts.withLockedValue { $0[path] ?? 0 } }

    /// The paths containing `text` among the latest few thousand requests, in the order they arrived.
    func arrived(containing text: String) -> [String] { arrivals.withLockedValue { $0.filter { $0.contains(text) } } }

    /// When each request for this path and query arrived, in seconds of the monotonic clock, oldest first.
    func arrivals(_ path: String) -> [Double] { times.withLockedValue { $0[path] ?? [] } }

    /// A stream of `key` starts: counts it as running, and keeps the most that ever ran at once ("max KEY").
    func enter(_ key: String) {
        counts.withLockedValue { c in
            let running = c["running " + key, default: 0] + 1
            c["running " + key] = running
            c["max " + key] = max(c["max " + key, default: 0], running)
        }
    }

    func leave(_ key: String) { counts.withLockedValue { $0["running " + key, default: 0] -= 1 } }

    func keys(startingWith prefix: String) -> [String] { counts.withLockedValue { $0.keys.filter { $0.hasPrefix(prefix) } } }

    /// Gates a test opens (`/drip?gate=K` holds its body after the first chunk until K is open).
    private let openGates = NIOLockedValueBox<Set<String>>([])

    func open(gate: String) { _ = openGates.withLockedValue { $0.insert(gate) } }

    func isOpen(gate: String) -> Bool { openGates.withLockedValue { $0.contains(gate) } }
}
