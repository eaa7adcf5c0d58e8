// Ctrl-C and SIGTERM as events instead of a sudden death, so a download can keep its partial file.
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

final class SignalTrap {
    private let sources: [any DispatchSourceSignal]

    /// Runs `handler` on its own queue for the first SIGINT or SIGTERM; a second one ends the process at once.
    init(_ handler: @escaping @Sendable (Int32) -> Void) {
        let queue = DispatchQueue(label: "sluice.signals")
        let first = SignalFlag()
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)  // the dispatch source sees it; the default action must not kill first
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                if first.take() { handler(number) } else { _exit(128 + number) }
            }
            source.resume()
            return source
        }
    }

    deinit { sources.forEach { $0.cancel() } }
}

/// True exactly once; only touched on the signal queue.
private final class SignalFlag: @unchecked Sendable {
    private var taken = false
    func take() -> Bool {
        defer { taken = true }
        return !taken
    }
}
