// Ctrl-C, SIGTERM and a closed terminal's SIGHUP as events instead of a sudden death, so a download can keep its
// partial file and its last checkpoint.
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

final class SignalTrap {
    private let sources: [any DispatchSourceSignal]
    /// Each trapped signal's action before the trap, put back when it ends: left ignored, a Ctrl-C after the
    /// transfers (while sluice waited for a hook, say) did nothing at all.
    private let before: [(Int32, sighandler_t?)]

    /// Runs `handler` on its own queue for the first SIGINT, SIGTERM or SIGHUP; a second SIGINT or SIGTERM ends
    /// the process at once. A SIGHUP that was ignored when sluice started (`nohup`) stays ignored: the user asked to outlive the
    /// terminal.
    init(_ handler: @escaping @Sendable (Int32) -> Void) {
        let queue = DispatchQueue(label: "sluice.signals")
        let first = SignalFlag()
        // The dispatch source sees a signal whose action is to ignore it; the default action must not kill first.
        let hangUp = signal(SIGHUP, SIG_IGN)
        let hangUpWasIgnored = unsafeBitCast(hangUp, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
        let trapped = [SIGINT, SIGTERM, SIGHUP].filter { $0 != SIGHUP || !hangUpWasIgnored }
        before = trapped.map { number in (number, number == SIGHUP ? hangUp : signal(number, SIG_IGN)) }
        sources = trapped.map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                if first.take() {
                    handler(number)
                } else if number != SIGHUP {
                    _exit(128 + number)
                }
                // A SIGHUP after the first signal is the kernel's, not a user insisting: a closed terminal hangs up
                // the foreground group, and its shell's exit hangs it up again. The graceful stop goes on.
            }
            source.resume()
            return source
        }
    }

    deinit {
        sources.forEach { $0.cancel() }
        for (number, action) in before { signal(number, action) }
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

/// True exactly once; only touched on the signal queue.
private final class SignalFlag: @unchecked Sendable {
    private var taken = false
    func take() -> Bool {
        defer { taken = true }
        return !taken
    }
}
