// Ctrl-C, SIGTERM and a closed terminal's SIGHUP as events instead of a sudden death, so a download can keep its
// partial file and its last checkpoint.
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

final class SignalTrap {
    private let sources: [any DispatchSourceSignal]

    /// Runs `handler` on its own queue for the first SIGINT, SIGTERM or SIGHUP; a second SIGINT or SIGTERM ends
    /// the process at once. A SIGHUP that was ignored when sluice started (`nohup`) stays ignored: the user asked to outlive the
    /// terminal.
    init(_ handler: @escaping @Sendable (Int32) -> Void) {
        let queue = DispatchQueue(label: "sluice.signals")
        let first = SignalFlag()
        // The dispatch source sees a signal whose action is to ignore it; the default action must not kill first.
        let hangUpWasIgnored = unsafeBitCast(signal(SIGHUP, SIG_IGN), to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
        sources = [SIGINT, SIGTERM, SIGHUP].filter { $0 != SIGHUP || !hangUpWasIgnored }.map { number in
            signal(number, SIG_IGN)
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

    deinit { sources.forEach { $0.cancel() } }

    /// Runs `body` with Ctrl-C, SIGTERM and SIGHUP turned into `stop`; returns the signal that came, if one did.
    static func run(stoppingWith stop: @escaping @Sendable () -> Void, _ body: () throws -> Void) rethrows -> Int32? {
        let interruption = Interruption()
        let trap = SignalTrap { signal in
            interruption.record(signal)
            stop()
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
