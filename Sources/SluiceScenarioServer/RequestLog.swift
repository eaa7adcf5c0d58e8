// Counts requests per path, so tests can prove that a resume did not send a second request.
import Synchronization

final class RequestLog: Sendable {
    private let counts = Mutex<[String: Int]>([:])

    func record(_ path: String) { counts.withLock { $0[path, default: 0] += 1 } }
    func count(_ path: String) -> Int { counts.withLock { $0[path] ?? 0 } }
}
