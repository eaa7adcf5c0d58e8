// A value behind a pthread mutex: the engine's one lock, chosen because ThreadSanitizer sees it.
#if canImport(Glibc)
import Glibc
#endif

/// Synchronization's `Mutex` is built on raw futex calls on Linux, which ThreadSanitizer cannot observe: under
/// `--sanitize=thread` every value it guarded looked raced. `pthread_mutex_t` is intercepted by the sanitizer
/// and costs the same uncontended (glibc's fast path is one atomic), so the engine uses this instead.
///
/// The value lives behind a pointer, in the mutex's allocation, rather than in a stored `var`: a class's `var`
/// passed `inout` costs a dynamic exclusivity check (swift_beginAccess and a thread-local access set) on every
/// call, 22 a request in the HTTP/2 small-file benchmark (docs/performance.md), while the mutex already makes
/// every access exclusive. (A nested generic struct holding both cost more: its metadata is looked up at run time.)
package final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let value: UnsafeMutablePointer<Value>

    package init(_ value: Value) {
        let offset = Self.valueOffset
        let memory = UnsafeMutableRawPointer.allocate(
            byteCount: offset + MemoryLayout<Value>.size,
            alignment: max(MemoryLayout<pthread_mutex_t>.alignment, MemoryLayout<Value>.alignment))
        mutex = memory.bindMemory(to: pthread_mutex_t.self, capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        self.value = (memory + offset).bindMemory(to: Value.self, capacity: 1)
        self.value.initialize(to: value)
    }

    deinit {
        value.deinitialize(count: 1)
        pthread_mutex_destroy(mutex)
        UnsafeMutableRawPointer(mutex).deallocate()
    }

    /// Where the value starts: after the mutex, at the value's alignment.
    private static var valueOffset: Int {
        let alignment = MemoryLayout<Value>.alignment
        return (MemoryLayout<pthread_mutex_t>.stride + alignment - 1) / alignment * alignment
    }

    @inline(__always)
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }
}
