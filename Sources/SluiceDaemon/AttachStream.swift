// `GET /attach` read on a queue of its own for as long as it lasts: each line decoded and handed on, the end (and
// why) said once. Ending it from another thread shuts its socket, which the blocked read then sees.
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import SluiceLock

final class AttachStream: Sendable {
    private struct State {
        var socket: Int32?
        var detaching = false
    }

    private let state = Locked(State())

    /// Starts reading. `line` and then `ended` (with a reason, unless `detach` ended it) are called on the reader's
    /// queue, in order.
    init(client: DaemonClient, line: @escaping @Sendable (AttachLine) -> Void, ended: @escaping @Sendable (String?) -> Void) {
        DispatchQueue(label: "sluice.attach.reader").async { [self] in
            var reason = "the daemon closed the connection (it has stopped)"
            do throws(DaemonFailure) {
                _ = try client.stream("/attach", timeout: 0, opened: { fd in state.withLock { $0.socket = fd } }) { text in
                    guard let parsed = AttachLine.parse(text) else {
                        reason = "the daemon sent a line this sluice cannot read: is it another version? (sluice stop, then attach again)"
                        return false
                    }
                    if case .snapshot(let snapshot) = parsed, snapshot.version != AttachSnapshot.currentVersion {
                        reason = "the daemon speaks version \(snapshot.version) of the attach stream, this sluice \(AttachSnapshot.currentVersion): stop it (sluice stop) and attach again"
                        return false
                    }
                    line(parsed)
                    return true
                }
            } catch {
                reason = error.message
            }
            let detached = state.withLock { s -> Bool in
                s.socket = nil
                return s.detaching
            }
            ended(detached ? nil : reason)
        }
    }

    /// Ends the stream; the daemon's transfers go on.
    func detach() {
        let socket = state.withLock { s -> Int32? in
            s.detaching = true
            return s.socket
        }
        if let socket { shutdown(socket, Int32(SHUT_RDWR)) }
    }
}
