// The updates and removals waiting for the next batch: one entry per row, the latest wins.

struct PendingWrites {
    enum Change {
        case update(StoredTask)
        case remove
    }

    private(set) var changes: [Int64: Change] = [:]
    /// Whether a write is already due, so that a burst of updates schedules one write, not one each.
    var writeScheduled = false
    /// Why the last batch could not be written; nil after a batch that was.
    var failure: String?

    /// Returns whether the caller must schedule a write.
    mutating func record(_ change: Change, for id: Int64) -> Bool {
        // A late progress update must not bring back a row the user removed.
        if case .update = change, case .remove? = changes[id] { return false }
        changes[id] = change
        if writeScheduled { return false }
        writeScheduled = true
        return true
    }

    /// Everything queued, leaving nothing; the next change schedules a new write.
    mutating func take() -> [Int64: Change] {
        defer {
            changes = [:]
            writeScheduled = false
        }
        return changes
    }

    /// Puts a batch that could not be written back in front of what came since: newer updates win, a removal
    /// always stays. Returns whether the caller must schedule a write.
    mutating func restore(_ batch: [Int64: Change], failure: String) -> Bool {
        self.failure = failure
        for (id, change) in batch {
            switch (change, changes[id]) {
            case (.remove, _), (.update, nil): changes[id] = change
            case (.update, .some): break
            }
        }
        if writeScheduled || changes.isEmpty { return false }
        writeScheduled = true
        return true
    }
}
