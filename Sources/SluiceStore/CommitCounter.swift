// Counts the store's own committed transactions that changed tasks, and the rows they changed.
import SluiceLock

final class CommitCounter: Sendable {
    private let counts = Locked(TaskStore.Statistics(transactions: 0, rowsWritten: 0))

    var statistics: TaskStore.Statistics { counts.withLock { $0 } }

    /// A transaction committed, having changed `rows` rows of `task` (the sum of its statements'
    /// sqlite3_changes). One that changed none (a migration, an empty batch, an id reservation) is not a
    /// write of tasks.
    func committed(rows: Int) {
        guard rows > 0 else { return }
        counts.withLock {
            $0.transactions += 1
            $0.rowsWritten += rows
        }
    }
}
