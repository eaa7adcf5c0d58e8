// Where engine events wait for the UI thread.
import SluiceViewModel
import Synchronization

/// Engine events wait here (posted on the delegate queue) until the UI loop folds them into its model.
final class EventInbox: Sendable {
    private let events = Mutex<[ModelEvent]>([])
    func post(_ event: ModelEvent) { events.withLock { $0.append(event) } }
    func take() -> [ModelEvent] {
        events.withLock { list in
            var taken: [ModelEvent] = []
            swap(&list, &taken)  // hand the buffer over instead of copying it
            return taken
        }
    }
    var isEmpty: Bool { events.withLock { $0.isEmpty } }
}
