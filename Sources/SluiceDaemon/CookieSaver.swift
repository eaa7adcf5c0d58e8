// Writes the daemon's cookies to their file a second after they change, once for a burst of changes: nothing
// wakes while nothing changes.
import Dispatch
import SluiceEngine
import SluiceLock

final class CookieSaver: Sendable {
    private let cookies: CookieStorage
    private let path: String
    private let queue = DispatchQueue(label: "sluice.daemon.cookies")
    private let pending = Locked(false)

    init(_ cookies: CookieStorage, to path: String) {
        self.cookies = cookies
        self.path = path
    }

    func changed() {
        let first = pending.withLock { waiting -> Bool in
            defer { waiting = true }
            return !waiting
        }
        guard first else { return }
        queue.asyncAfter(deadline: .now() + 1) { [self] in
            pending.withLock { $0 = false }
            try? cookies.save(to: path)
        }
    }
}
