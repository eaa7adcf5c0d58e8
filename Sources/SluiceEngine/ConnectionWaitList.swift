// Tasks that wait for one of an origin's httpMaximumConnectionsPerHost connections over HTTP/1.1, where each
// request needs a connection of its own: the highest priority starts first, then the earliest.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The loop's record of which origins are full and who waits for them. libcurl keeps its own queue for
/// CURLMOPT_MAX_HOST_CONNECTIONS, in the order transfers were added; holding the excess here instead lets
/// `SessionTask.priority` choose. HTTP/2 origins are not listed: their tasks share a connection as streams,
/// ordered by CURLOPT_STREAM_WEIGHT.
struct ConnectionWaitList {
    let limit: Int
    /// Per origin, how many tasks hold one of its connections.
    private var holding: [String: Int] = [:]
    /// Per origin, the ids of the waiting tasks.
    private var waiting: [String: PriorityLine<Int>] = [:]

    init(limit: Int) { self.limit = max(1, limit) }

    /// A task to `origin` wants to start: true when it may now (it then holds a connection until `release`);
    /// false when it waits. The priority is read now: changing it later does not move a waiting task.
    mutating func admit(_ id: Int, to origin: String, priority: Float) -> Bool {
        if holding[origin, default: 0] < limit {
            holding[origin, default: 0] += 1
            return true
        }
        waiting[origin, default: PriorityLine()].append(id, priority: priority)
        return false
    }

    /// A task that held a connection to `origin` no longer needs it: the task that starts in its place (and now
    /// holds it), or nil when none waits.
    mutating func release(_ origin: String) -> Int? {
        if let next = waiting[origin]?.popFirst() {
            if waiting[origin]?.isEmpty == true { waiting[origin] = nil }
            return next
        }
        let count = holding[origin, default: 0] - 1
        holding[origin] = count > 0 ? count : nil
        return nil
    }

    /// A waiting task leaves (cancelled) without having held a connection; false when it was not waiting.
    mutating func remove(_ id: Int, from origin: String) -> Bool {
        guard waiting[origin]?.remove(where: { $0 == id }) != nil else { return false }
        if waiting[origin]?.isEmpty == true { waiting[origin] = nil }
        return true
    }

    var isEmpty: Bool { waiting.isEmpty }

    /// The origin whose connections a request to `url` waits for; nil when it does not wait here: a limit of
    /// 0 or less, a local URL, or a request that may be one more HTTP/2 stream on a shared connection (https
    /// that may negotiate h2, or prior knowledge).
    static func origin(of url: URL, _ configuration: SessionConfiguration) -> String? {
        origin(of: url, scheme: url.scheme?.lowercased() ?? "", configuration)
    }

    /// The same for a URL whose scheme the caller has read and lowercased already (the loop reads it once for
    /// the origin and the transfer: URL.scheme slices the string anew on every call).
    static func origin(of url: URL, scheme: String, _ configuration: SessionConfiguration) -> String? {
        guard configuration.httpMaximumConnectionsPerHost > 0, scheme == "http" || scheme == "https" else { return nil }
        let multiplexes = configuration.multiplexingEnabled && configuration.httpVersion != .http1_1
            && (scheme == "https" || configuration.httpVersion == .http2PriorKnowledge)
        // Decided before the host is read: URL.host parses it anew on every call (1,100 instructions), and
        // HTTP/2 requests do not wait here.
        guard !multiplexes, let host = url.host?.lowercased() else { return nil }
        return "\(scheme)://\(host):\(url.port ?? (scheme == "https" ? 443 : 80))"
    }
}
