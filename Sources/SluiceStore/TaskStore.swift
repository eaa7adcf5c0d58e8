// The durable store of tasks: one SQLite file in WAL mode; inserts are immediate, updates and removals are
// batched into one transaction at most every 500 ms on a thread of the store's own.
import Dispatch
import GRDB
import Synchronization

public final class TaskStore: Sendable {
    /// What SQLite reported writing: the transactions that changed tasks and the rows they changed.
    public struct Statistics: Sendable, Equatable {
        public var transactions: Int
        public var rowsWritten: Int

        public init(transactions: Int, rowsWritten: Int) {
            self.transactions = transactions
            self.rowsWritten = rowsWritten
        }
    }

    /// The database file, `sluice.db` in the store's directory.
    public let path: String
    /// Set when opening had to do something the user should hear about, e.g. that the damaged store was
    /// moved aside.
    public let notice: String?

    private let pool: DatabasePool
    private let counter = CommitCounter()
    private let batchInterval: Double
    private let pending = Mutex(PendingWrites())
    /// Every batch is written here, never on the thread that queued it.
    private let writer = DispatchQueue(label: "sluice.store.writer")

    /// `$XDG_STATE_HOME/sluice`, else `~/.local/state/sluice`.
    public static func defaultDirectory(environment: [String: String]) -> String {
        StoreDirectory.path(environment: environment)
    }

    /// Opens the store in `directory` (made 0700 if missing), creating or migrating `sluice.db`. A file SQLite
    /// finds damaged or cannot open is renamed `sluice.db.corrupt-YYYYmmdd-HHMMSS` and a new one made; `notice`
    /// says so. `batchInterval` is the least time between two batched writes, in seconds.
    public init(directory: String, batchInterval: Double = 0.5) throws {
        try StoreDirectory.make(directory)
        let path = directory + "/sluice.db"
        self.path = path
        self.batchInterval = max(0, batchInterval)
        var aside: (to: String, why: String)?
        if let damage = DamagedStore.inspect(path) {
            aside = (try DamagedStore.moveAside(path), damage)
        }
        do {
            pool = try Self.open(path)
        } catch where aside == nil && DamagedStore.isDamage(error, path: path) {
            // Damage the inspection could not see (it reads only what quick_check reads).
            aside = (try DamagedStore.moveAside(path), Self.reason(error))
            pool = try Self.open(path)
        }
        notice = aside.map { "the task store \(path) could not be read (\($0.why)); it was moved to \($0.to) and a new one started" }
        pool.add(transactionObserver: counter, extent: .databaseLifetime)
    }

    deinit {
        // Nothing else holds the store now, so nothing can be writing: write what is left here, once (a retry
        // would need a reference to a store that is going away).
        writeBatch(retrying: false)
    }

    private static func open(_ path: String) throws -> DatabasePool {
        var configuration = Configuration()
        // Another sluice may be writing a batch; wait for it rather than fail.
        configuration.busyMode = .timeout(10)
        let pool = try DatabasePool(path: path, configuration: configuration)
        try StoreSchema.migrate(pool)
        return pool
    }

    private static func reason(_ error: any Error) -> String {
        if let error = error as? DatabaseError { return error.message ?? "SQLite error \(error.resultCode.rawValue)" }
        return "\(error)"
    }

    /// Writes the task at once and returns it with its new id (any id it carried is ignored).
    public func insert(_ task: StoredTask) throws -> StoredTask {
        var task = task
        task.id = try pool.write { db in
            try db.execute(sql: StoreSchema.insertSQL, arguments: task.databaseValues)
            return db.lastInsertedRowID
        }
        return task
    }

    /// Writes the tasks at once in one transaction (the cost of adding many URLs at start is one commit, not
    /// one each) and returns them with their new ids, in order.
    public func insert(_ tasks: [StoredTask]) throws -> [StoredTask] {
        try pool.write { db in
            let insert = try db.cachedStatement(sql: StoreSchema.insertSQL)
            return try tasks.map { task in
                var task = task
                try insert.execute(arguments: task.databaseValues)
                task.id = db.lastInsertedRowID
                return task
            }
        }
    }

    /// Queues the task's new version; the next batch writes the latest one. A row that is gone stays gone.
    public func update(_ task: StoredTask) {
        queue(.update(task), for: task.id)
    }

    /// Queues the row's removal for the next batch.
    public func remove(id: Int64) {
        queue(.remove, for: id)
    }

    /// Returns when everything queued so far is written (or has failed: see `writeError`).
    public func flush() {
        writer.sync { writeBatch() }
    }

    /// Why the last batch could not be written (it stays queued and is tried again); nil once one is.
    public var writeError: String? {
        pending.withLock { $0.failure }
    }

    public var statistics: Statistics { counter.statistics }

    /// Every task, by priority, then id. What is queued is written first, so the list includes it.
    public func all() throws -> [StoredTask] {
        flush()
        return try pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM task ORDER BY priority, id").map(StoredTask.init(row:))
        }
    }

    /// The tasks whose URL or destination contains `text` (ASCII letters in any case; nil or "" matches every
    /// task), newest first, at most `limit` of them. What is queued is written first.
    public func search(_ text: String?, limit: Int?) throws -> [StoredTask] {
        flush()
        let text = text.flatMap { $0.isEmpty ? nil : $0 }
        return try pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT * FROM task
                WHERE ?1 IS NULL OR instr(lower(url), lower(?1)) > 0 OR instr(lower(coalesce(destination, '')), lower(?1)) > 0
                ORDER BY createdAt DESC, id DESC
                LIMIT ?2
                """, arguments: [text, limit.map { max(0, $0) } ?? -1]).map(StoredTask.init(row:))
        }
    }

    private func queue(_ change: PendingWrites.Change, for id: Int64) {
        let mustSchedule = pending.withLock { $0.record(change, for: id) }
        if mustSchedule { scheduleWrite() }
    }

    private func scheduleWrite() {
        writer.asyncAfter(deadline: .now() + batchInterval) { [weak self] in self?.writeBatch() }
    }

    /// Writes everything queued in one transaction. Runs on `writer` (or in deinit, when nothing else can).
    /// A batch that fails stays queued and, when `retrying`, is tried again after the interval.
    private func writeBatch(retrying: Bool = true) {
        let batch = pending.withLock { $0.take() }
        guard !batch.isEmpty else { return }
        do {
            try pool.write { db in
                // Compiled once per batch, not once per row: a batch can hold every task of a large queue.
                let update = try db.cachedStatement(sql: StoreSchema.updateSQL)
                let remove = try db.cachedStatement(sql: "DELETE FROM task WHERE id = ?")
                for (id, change) in batch {
                    switch change {
                    case .update(let task):
                        var arguments = task.databaseValues
                        arguments += [id]
                        try update.execute(arguments: arguments)
                    case .remove:
                        try remove.execute(arguments: [id])
                    }
                }
            }
            pending.withLock { $0.failure = nil }
        } catch {
            let mustSchedule = pending.withLock { $0.restore(batch, failure: Self.reason(error)) }
            if mustSchedule && retrying { scheduleWrite() }
        }
    }
}
