// Counts the transactions that changed tasks and the rows they changed, as SQLite reports them to GRDB.
import GRDB
import Synchronization

final class CommitCounter: TransactionObserver, Sendable {
    private struct Counts {
        var transactions = 0
        var rows = 0
        var uncommittedRows = 0
    }

    private let counts = Mutex(Counts())

    var statistics: TaskStore.Statistics {
        counts.withLock { TaskStore.Statistics(transactions: $0.transactions, rowsWritten: $0.rows) }
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        eventKind.tableName == "task"
    }

    func databaseDidChange(with event: DatabaseEvent) {
        counts.withLock { $0.uncommittedRows += 1 }
    }

    func databaseDidCommit(_ db: Database) {
        counts.withLock {
            // A commit that touched no task (a migration, an empty batch) is not a write of the store's.
            guard $0.uncommittedRows > 0 else { return }
            $0.transactions += 1
            $0.rows += $0.uncommittedRows
            $0.uncommittedRows = 0
        }
    }

    func databaseDidRollback(_ db: Database) {
        counts.withLock { $0.uncommittedRows = 0 }
    }
}
