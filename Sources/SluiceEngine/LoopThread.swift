// A plain pthread for the transfer loop: no Foundation Thread, so the engine needs only FoundationEssentials.
#if canImport(Glibc)
import Glibc
#endif

enum LoopThread {
    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    /// False when the system would not give a thread.
    static func start(_ run: @escaping @Sendable () -> Void) -> Bool {
        let body = Unmanaged.passRetained(Body(run)).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            let body = Unmanaged<Body>.fromOpaque(raw).takeRetainedValue()
            body.run()
            return nil
        }, body)
        guard created == 0 else {
            Unmanaged<Body>.fromOpaque(body).release()
            return false
        }
        pthread_detach(thread)
        return true
    }
}
