// The mirrors a split download dropped, said on stderr once it ends: `sluice: mirror URL dropped: reason`.
import SluiceEngine
import SluiceViewModel
import Synchronization

/// Collected from the event stream rather than printed as they come, so that no line cuts through the progress line.
final class MirrorNotes: Sendable {
    private let lines = Mutex<[String]>([])

    func monitor(then next: TaskEventMonitor?) -> TaskEventMonitor {
        { [self] record in
            if case .mirrorDropped(let url, let reason) = record.event {
                let line = "sluice: mirror \(Sanitized.text(url.absoluteString)) dropped: \(Sanitized.text(reason))\n"
                lines.withLock { $0.append(line) }
            }
            next?(record)
        }
    }

    func report() {
        for line in lines.withLock({ $0 }) { StandardStreams.error(line) }
    }
}
