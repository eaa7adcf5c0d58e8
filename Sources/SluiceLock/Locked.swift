// A value behind a pthread mutex: the engine's one lock, chosen because ThreadSanitizer sees it.
#if canImport(Glibc)
import Glibc
#endif

/// Synchronization's `Mutex` is built on raw futex calls on Linux, which ThreadSanitizer cannot observe: under
/// `--sanitize=thread` every value it guarded looked raced. `pthread_mutex_t` is intercepted by the sanitizer
/// and costs the same uncontended (glibc's fast path is one atomic), so the engine uses this instead.
package final class Locked<Value>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var value: Value

    package init(_ value: Value) {
        self.value = value
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @inline(__always)
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
