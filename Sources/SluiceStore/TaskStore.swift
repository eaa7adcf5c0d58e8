// The durable store of tasks: one SQLite file in WAL mode; inserts are immediate, updates and removals are
// batched into one transaction at most every 100 ms on a thread of the store's own.
#if canImport(Glibc)
import Glibc
#endif
import CSQLite
import Dispatch
import SluiceLock

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

    /// What only the writer touches.
    private struct Writer {
        let connection: SQLiteConnection
        var unwritten = ReservedIDs()
    }

    // Two connections, each opened SQLITE_OPEN_NOMUTEX and used only under its own lock. The writer's is also
    // used only on `writer` (or in deinit, when nothing else can run), so its lock is never contended: it is
    // there so that the compiler checks the rule. Reads take the other, so `sluice history` in this process or
    // a listing never waits for a batch (WAL lets a reader run while a writer commits).
    private let writeSide: Locked<Writer>
    private let reader: Locked<SQLiteConnection>
    private let counter = CommitCounter()
    private let batchInterval: Double
    private let pending = Locked(PendingWrites())
    /// Every write is made here, never on the thread that queued it: one writer, in the order they came.
    private let writer = DispatchQueue(label: "sluice.store.writer")

    /// `$XDG_STATE_HOME/sluice`, else `~/.local/state/sluice`.
    public static func defaultDirectory(environment: [String: String]) -> String {
        StoreDirectory.path(environment: environment)
    }

    /// Opens the store in `directory` (made 0700 if missing), creating or migrating `sluice.db`. A file SQLite
    /// finds damaged or cannot open is renamed `sluice.db.corrupt-YYYYmmdd-HHMMSS` and a new one made; `notice`
    /// says so. `batchInterval` is the least time between two batched writes, in seconds: short, so that what a
    /// run's end must write before its exit is short too (a transaction costs no flush to disk in WAL mode).
    public init(directory: String, batchInterval: Double = 0.02) throws {
        try StoreDirectory.make(directory)
        let path = directory + "/sluice.db"
        self.path = path
        self.batchInterval = max(0, batchInterval)
        var aside: (to: String, why: String)?
        if let damage = DamagedStore.inspect(path) {
            aside = (try DamagedStore.moveAside(path), damage)
        }
        let connection: SQLiteConnection
        do {
            connection = try Self.openWriter(path)
        } catch where aside == nil && DamagedStore.isDamage(error, path: path) {
            // Damage the inspection could not see (it reads only what quick_check reads).
            aside = (try DamagedStore.moveAside(path), Self.reason(error))
            connection = try Self.openWriter(path)
        }
        writeSide = Locked(Writer(connection: connection))
        reader = Locked(try Self.openReader(path))
        notice = aside.map { "the task store \(path) could not be read (\($0.why)); it was moved to \($0.to) and a new one started" }
    }

    deinit {
        // Nothing else holds the store now, so nothing can be writing: write what is left here, once (a retry
        // would need a reference to a store that is going away).
        writeBatch(retrying: false)
    }

    /// The writer, in WAL mode with the schema brought up to date. It is released (closed) when this throws,
    /// so that a damaged file can be moved aside.
    private static func openWriter(_ path: String) throws -> SQLiteConnection {
        var info = stat()
        let isNew = stat(path, &info) != 0 || info.st_size == 0  // before SQLite makes the file
        let writer = try SQLiteConnection(path: path)
        try StoreSchema.refuseNewer(writer)
        // A commit is not an fsync in WAL mode: a kill -9 loses nothing committed, a power cut the last commits.
        // A new file is set up (WAL, the schema) without any: its six fsyncs were most of a first start's store
        // cost, and a power cut then can only lose an empty store (made again, or set aside if damaged).
        // A store that holds tasks is never changed unsynced, migrations included.
        try writer.execute(isNew ? "PRAGMA synchronous = OFF" : "PRAGMA synchronous = NORMAL")
        try useWAL(writer)
        try StoreSchema.migrate(writer)
        if isNew { try writer.execute("PRAGMA synchronous = NORMAL") }
        return writer
    }

    /// Read-write, not read-only, so that whichever connection closes last can checkpoint the WAL into the file
    /// and remove it; query_only keeps it to reading all the same.
    private static func openReader(_ path: String) throws -> SQLiteConnection {
        let reader = try SQLiteConnection(path: path)
        try reader.execute("PRAGMA query_only = ON")
        return reader
    }

    /// Switches the file to WAL, which is kept in the file once set. SQLite answers with the mode it kept when
    /// it could not change it (another sluice making the same new store may hold the file at that moment), so
    /// it is asked again until it has, for as long as the busy timeout (10 s).
    private static func useWAL(_ connection: SQLiteConnection) throws {
        var tries = 0
        while true {
            let mode = try connection.text("PRAGMA journal_mode = WAL")
            if mode == "wal" { return }
            tries += 1
            guard tries < 1000 else {
                throw SQLiteError(extendedCode: SQLITE_BUSY, message: "the store stayed in journal mode \(mode ?? "none"), not WAL")
            }
            usleep(10_000)
        }
    }

    private static func reason(_ error: any Error) -> String {
        if let error = error as? SQLiteError { return error.message }
        return "\(error)"
    }

    /// Runs `body` in one write transaction on the writer queue, counting the task rows it reports changed.
    private func write<T: Sendable>(_ body: @Sendable (inout Writer) throws -> (result: T, rows: Int)) throws -> T {
        try writer.sync {
            try writeSide.withLock { side in
                let (result, rows) = try side.connection.writeTransaction { try body(&side) }
                counter.committed(rows: rows)
                return result
            }
        }
    }

    /// Writes the task at once and returns it with its new id (any id it carried is ignored).
    public func insert(_ task: StoredTask) throws -> StoredTask {
        try insert([task])[0]
    }

    /// Writes the tasks at once in one transaction (the cost of adding many URLs at start is one commit, not
    /// one each) and returns them with their new ids, in order.
    public func insert(_ tasks: [StoredTask]) throws -> [StoredTask] {
        try write { side in
            let insert = try side.connection.cached(StoreSchema.insertSQL)
            var rows = 0
            let inserted = try tasks.map { task in
                var task = task
                rows += try insert.run(task.databaseValues)
                task.id = side.connection.lastInsertedID
                return task
            }
            return (inserted, rows)
        }
    }

    /// Reserves `count` ids for rows to be written later with `update`, which makes each row on its first
    /// write. In one write transaction: the ids start past both the largest id in the table and the last id
    /// AUTOINCREMENT gave (sqlite_sequence, which remembers removed rows), and the sequence is moved past
    /// them, so no other store on the file, and no later insert, is ever given one of them.
    public func reserveIDs(_ count: Int) throws -> Range<Int64> {
        precondition(count >= 0, "reserveIDs(\(count)): a negative count")
        let ids = try write { side in
            let last = try side.connection.int64("""
                SELECT max(coalesce((SELECT max(id) FROM task), 0),
                           coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'task'), 0))
                """) ?? 0
            // What AUTOINCREMENT answers when the largest id is taken.
            guard last < Int64.max - Int64(count) else {
                throw SQLiteError(extendedCode: SQLITE_FULL, message: "the store has no \(count) ids left past \(last)")
            }
            let ids = (last + 1)..<(last + 1 + Int64(count))
            if count > 0 {
                let end = SQLiteValue.integer(ids.upperBound - 1)
                let moved = try side.connection.cached("UPDATE sqlite_sequence SET seq = ? WHERE name = 'task'").run([end])
                if moved == 0 {
                    // No row has been inserted yet: SQLite makes the table's entry on the first insert.
                    try side.connection.cached("INSERT INTO sqlite_sequence (name, seq) VALUES ('task', ?)").run([end])
                }
            }
            return (ids, 0)  // sqlite_sequence is SQLite's bookkeeping, not a task row
        }
        // Only once committed: ids a failed commit gave back may go to another store, whose rows an upsert here
        // would overwrite.
        writer.sync { writeSide.withLock { $0.unwritten.add(ids) } }
        return ids
    }

    /// Queues the task's new version; the next batch writes the latest one. A row that is gone stays gone; a
    /// row with an id `reserveIDs` gave and no row yet is made.
    public func update(_ task: StoredTask) {
        queue(.update(task), for: task.id)
    }

    /// Queues each task's new version, as `update` one by one does, under one lock: the UI hands over every row
    /// its latest events touched at once.
    public func update(_ tasks: [StoredTask]) {
        guard !tasks.isEmpty else { return }
        let mustSchedule = pending.withLock { pending in
            tasks.reduce(false) { scheduled, task in pending.record(.update(task), for: task.id) || scheduled }
        }
        if mustSchedule { scheduleWrite() }
    }

    /// Gives back reserved ids that were never handed out (the end of the last reservation, as a run ends), so
    /// that the next run's ids go on from the last one used instead of jumping past them. Only while the
    /// sequence still ends at them (no store reserved or inserted past them) and no row has one of them; after
    /// everything queued is written. True when they were given back.
    @discardableResult
    public func giveBack(_ ids: Range<Int64>) -> Bool {
        guard !ids.isEmpty else { return false }
        flush()
        let given = (try? write { side -> (Bool, Int) in
            let sequence = try side.connection.int64("SELECT seq FROM sqlite_sequence WHERE name = 'task'") ?? 0
            let largest = try side.connection.int64("SELECT coalesce(max(id), 0) FROM task") ?? 0
            guard sequence == ids.upperBound - 1, largest < ids.lowerBound else { return (false, 0) }
            try side.connection.cached("UPDATE sqlite_sequence SET seq = ? WHERE name = 'task'").run([.integer(ids.lowerBound - 1)])
            return (true, 0)
        }) ?? false
        if given { writer.sync { writeSide.withLock { side in for id in ids { side.unwritten.remove(id) } } } }
        return given
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
        return try read(StoreSchema.selectSQL + "ORDER BY priority, id", [])
    }

    /// What a run off a terminal needs of a long history: the unfinished tasks, which it resumes, and the downloads of
    /// `urls`, which may be saved already (by priority, then id). Reading every row instead cost 6 µs a row, a tenth
    /// of a second for 16,000 past tasks on every start. What is queued is written first.
    public func unfinished(orDownloadsOf urls: [String]) throws -> [StoredTask] {
        flush()
        var list = "["
        for (index, url) in urls.enumerated() {
            if index > 0 { list += "," }
            StoredTask.appendJSONString(url, to: &list)
        }
        list += "]"
        return try read(Self.unfinishedOrDownloadsSQL, [.text(list)])
    }

    private static let unfinishedOrDownloadsSQL = StoreSchema.selectSQL + """
        WHERE state NOT IN (\(StoredTask.State.allCases.filter(\.isFinished).map { "'\($0.rawValue)'" }.joined(separator: ", ")))
           OR (kind = '\(StoredTask.Kind.download.rawValue)' AND url IN (SELECT value FROM json_each(?1)))
        ORDER BY priority, id
        """

    /// The tasks whose URL or destination contains `text` (ASCII letters in any case; nil or "" matches every
    /// task), newest first, at most `limit` of them. What is queued is written first.
    public func search(_ text: String?, limit: Int?) throws -> [StoredTask] {
        flush()
        let text = text.flatMap { $0.isEmpty ? nil : $0 }
        return try read(StoreSchema.selectSQL + """
            WHERE ?1 IS NULL OR instr(lower(url), lower(?1)) > 0 OR instr(lower(coalesce(destination, '')), lower(?1)) > 0
            ORDER BY createdAt DESC, id DESC
            LIMIT ?2
            """, [SQLiteValue(text), .integer(Int64(limit.map { max(0, $0) } ?? -1))])
    }

    /// The tasks `sql` selects, read on the reader in one statement (one snapshot of the file).
    private func read(_ sql: String, _ values: [SQLiteValue]) throws -> [StoredTask] {
        try reader.withLock { connection in
            let statement = try connection.cached(sql)
            // Ends the read however it ends, so that its snapshot does not hold back the WAL's checkpoints.
            defer { statement.reset() }
            try statement.bind(values)
            var tasks: [StoredTask] = []
            while try statement.step() { tasks.append(try StoredTask(row: statement)) }
            return tasks
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
            try writeSide.withLock { side in
                let rows = try side.connection.writeTransaction {
                    // Compiled once, not once per row: a batch can hold every task of a large queue.
                    let update = try side.connection.cached(StoreSchema.updateSQL)
                    let upsert = try side.connection.cached(StoreSchema.upsertSQL)
                    let remove = try side.connection.cached("DELETE FROM task WHERE id = ?")
                    var rows = 0
                    // In the order of their ids, which is the order of the table and of both indexes' last
                    // column: a batch in the dictionary's order put rows at random places in each B-tree
                    // (docs/performance.md, tenth round: shuffled rows took a fifth to two fifths longer).
                    // The ids sorted, not the entries: each entry moved a whole stored task at every swap.
                    for id in batch.keys.sorted() {
                        guard let change = batch[id] else { continue }
                        switch change {
                        case .update(let task) where side.unwritten.contains(id):
                            rows += try upsert.runBindingTextInPlace(task.databaseValues(id: id))
                        case .update(let task):
                            // Not made when missing: a row removed in an earlier batch, by this store or
                            // another, stays removed.
                            rows += try update.runBindingTextInPlace(task.databaseValues(id: id, first: false))
                        case .remove:
                            rows += try remove.run([.integer(id)])
                        }
                    }
                    return rows
                }
                counter.committed(rows: rows)
                // Written or removed: a reserved id's later updates are ordinary ones.
                for id in batch.keys { side.unwritten.remove(id) }
            }
            pending.withLock { $0.failure = nil }
        } catch {
            let mustSchedule = pending.withLock { $0.restore(batch, failure: Self.reason(error)) }
            if mustSchedule && retrying { scheduleWrite() }
        }
    }
}
