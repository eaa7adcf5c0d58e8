// Where engine events wait for the UI thread.
import SluiceViewModel
import SluiceLock

/// Engine events wait here (posted on the delegate queue) until the UI loop folds them into its model.
final class EventInbox: Sendable {
    private let events = Locked<[ModelEvent]>([])
    /// Called when an event arrives in an empty inbox, so a headless loop can sleep instead of polling.
    private let wake = Locked<(@Sendable () -> Void)?>(nil)
    func post(_ event: ModelEvent) {
        let first = events.withLock { list in
            list.append(event)
            return list.count == 1
        }
        if first, let wake = wake.withLock({ $0 }) { wake() }
    }
    func onFirstEvent(_ handler: @escaping @Sendable () -> Void) { wake.withLock { $0 = handler } }
    func take() -> [ModelEvent] {
        events.withLock { list in
            guard !list.isEmpty else { return [] }  // nothing to hand over, nothing to allocate
            // Hand the buffer over instead of copying it, and leave one as large behind: an empty array grew by
            // doubling, and each growth moved every event posted since the last drain (events are large values).
            var taken: [ModelEvent] = []
            taken.reserveCapacity(Swift.max(64, list.count))
            swap(&list, &taken)
            return taken
        }
    }
    var isEmpty: Bool { events.withLock { $0.isEmpty } }
}
