// Counts requests per path, so tests can prove that a resume did not send a second request.
import NIOConcurrencyHelpers

/// NIO's lock is a pthread mutex, which ThreadSanitizer sees (Synchronization's Mutex is not, on Linux).
final class RequestLog: Sendable {
    private let counts = NIOLockedValueBox<[String: Int]>([:])

    /// Returns how many times `path` has now been seen, this time included.
    @discardableResult
    func record(_ path: String) -> Int {
        counts.withLockedValue {
            $0[path, default: 0] += 1
            return $0[path, default: 0]
        }
    }
    func count(_ path: String) -> Int { counts.withLockedValue { $0[path] ?? 0 } }
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
}
