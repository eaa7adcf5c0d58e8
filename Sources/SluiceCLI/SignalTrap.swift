// Ctrl-C, SIGTERM and a closed terminal's SIGHUP as events instead of a sudden death, so a download can keep its
// partial file and its last checkpoint. A plain signal handler, not Dispatch's signal sources: on Linux those read
// a signalfd, which sees an ignored signal only while the main thread blocks it, and a source made after an earlier
// one was cancelled no longer did: a Ctrl-C in `get`'s wait before a retry (its second trap) was dropped unseen.
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import SluiceLock
import Synchronization

// What the handler touches: an atomic, sem_post and _exit, all safe in a signal handler. Both are made before the
// first handler is installed (a global's first use runs its initializer, which a handler must not do).
/// The first signal since the traps in force began; 0: none yet.
private let firstSignal = Atomic<Int32>(0)
/// Posted by the handler for that first signal, to wake the listener.
private nonisolated(unsafe) let listenerWakeup: UnsafeMutablePointer<sem_t> = {
    let semaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
    sem_init(semaphore, 0, 0)
    return semaphore
}()

private func signalArrived(_ number: Int32) {
    if firstSignal.compareExchange(expected: 0, desired: number, ordering: .sequentiallyConsistent).exchanged {
        sem_post(listenerWakeup)
    } else if number != SIGHUP {
        _exit(128 + number)  // a second Ctrl-C or SIGTERM: the user insists
    }
    // A SIGHUP after the first signal is the kernel's, not a user insisting: a closed terminal hangs up the
    // foreground group, and its shell's exit hangs it up again. The graceful stop goes on.
}

/// The traps in force (more than one only where commands run side by side, as in the tests) and what the signals
/// did before the first of them began.
private struct Traps {
    var handlers: [Int: @Sendable (Int32) -> Void] = [:]
    var told: Set<Int> = []
    var next = 0
    var before: [(Int32, sighandler_t?)] = []
    var listening = false
}
private let traps = Locked(Traps())

final class SignalTrap {
    private let id: Int

    /// Runs `handler` on the listener's thread for the first SIGINT, SIGTERM or SIGHUP; a second SIGINT or SIGTERM
    /// ends the process at once. A SIGHUP that was ignored when the trap began (`nohup`) stays ignored: the user
    /// asked to outlive the terminal.
    init(_ handler: @escaping @Sendable (Int32) -> Void) {
        id = traps.withLock { t in
            if t.handlers.isEmpty {
                firstSignal.store(0, ordering: .sequentiallyConsistent)
                _ = listenerWakeup
                let hangUp = signal(SIGHUP, SIG_IGN)
                let hangUpWasIgnored = unsafeBitCast(hangUp, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
                if !hangUpWasIgnored { signal(SIGHUP, hangUp) }
                let trapped = [SIGINT, SIGTERM, SIGHUP].filter { $0 != SIGHUP || !hangUpWasIgnored }
                t.before = trapped.map { ($0, signal($0, signalArrived)) }
            }
            if !t.listening {
                t.listening = true
                Self.listen()
            }
            t.next += 1
            t.handlers[t.next] = handler
            return t.next
        }
    }

    /// Each trap's action before the first began is put back when the last ends: left ignored, a Ctrl-C after the
    /// transfers (while sluice waited for a hook, say) did nothing at all.
    deinit {
        let id = self.id
        traps.withLock { t in
            t.handlers[id] = nil
            t.told.remove(id)
            guard t.handlers.isEmpty else { return }
            for (number, action) in t.before { signal(number, action) }
            t.before = []
        }
    }

    /// One thread for the life of the process, woken by the handler: it tells every trap in force, once each.
    private static func listen() {
        DispatchQueue(label: "sluice.signals").async {
            while true {
                while sem_wait(listenerWakeup) != 0 {}  // EINTR
                let number = firstSignal.load(ordering: .sequentiallyConsistent)
                guard number != 0 else { continue }  // a wake-up from before the traps in force began
                let untold = traps.withLock { t in
                    let ids = t.handlers.keys.filter { !t.told.contains($0) }
                    t.told.formUnion(ids)
                    return ids.compactMap { t.handlers[$0] }
                }
                for handler in untold { handler(number) }
            }
        }
    }

    /// Runs `body` with the first Ctrl-C, SIGTERM or SIGHUP turned into `stop` (told which); returns the signal
    /// that came, if one did.
    static func run(stoppingWith stop: @escaping @Sendable (Int32) -> Void, _ body: () throws -> Void) rethrows -> Int32? {
        let interruption = Interruption()
        let trap = SignalTrap { signal in
            interruption.record(signal)
            stop(signal)
        }
        try withExtendedLifetime(trap) { try body() }
        return interruption.signal
    }
}

/// The signal that stopped the transfer, if one did.
final class Interruption: Sendable {
    private let value = Atomic<Int32>(0)
    func record(_ signal: Int32) { value.store(signal, ordering: .sequentiallyConsistent) }
    var signal: Int32? {
        let v = value.load(ordering: .sequentiallyConsistent)
        return v == 0 ? nil : v
    }
}
