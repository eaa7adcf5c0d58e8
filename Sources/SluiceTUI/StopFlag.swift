// A stop request that crosses threads: set by a signal handler's queue, read by the UI loop.
import Synchronization

/// Set from a signal handler's queue, read by the UI loop.
public final class StopFlag: Sendable {
    private let value = Atomic<Bool>(false)
    public init() {}
    public func set() { value.store(true, ordering: .relaxed) }
    public var isSet: Bool { value.load(ordering: .relaxed) }
}
