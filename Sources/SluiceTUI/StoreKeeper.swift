// Keeps the store in step with the model: each row the engine's events touched is written again (the store
// batches, so a burst of progress costs one write), from the UI's thread, never the transfer's. A row that is still
// going is written at most every `deferral` (its record, with the timeline's text, was made at every drain, and a
// short download was made three or four times over); a row that has ended is written at once, so what the store says
// of a finished task never waits for a later drain.
#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SluiceEngine
import SluiceStore
import SluiceViewModel
import SluiceLock
import Dispatch

final class StoreKeeper: Sendable {
    let store: TaskStore

    private struct State {
        var facts: [Int: RowFacts] = [:]
        /// Where a data task's row about to become a download writes (`converting`), until the conversion passes.
        var conversions: [Int: DownloadCompanions] = [:]
        var records: [Int: StoredTask] = [:]
        /// What each record's timeline text was made from (see `TimelineMark`).
        var marks: [Int: TimelineMark] = [:]
        /// After quit: the rows keep the state they had, so the next start resumes them.
        var stopped = false
        /// Rows touched since their last record, not ended: made at the next due pass, or by `settle`.
        var deferred: Set<Int> = []
        /// When the deferred rows were last made (monotonic nanoseconds).
        var lastPass: UInt64 = 0
        /// Checkpoints of rows not recorded yet (a resumed download checkpoints before its first pass): the row's
        /// first record takes them.
        var pendingResume: [Int: Data] = [:]
    }

    private let state = Locked(State())
    /// Ids the store reserved for this process and not yet given to a row.
    private let reserved = Locked<Range<Int64>>(0..<0)
    /// How many ids one reservation takes: one write transaction per this many new rows.
    private static let reservation = 256

    /// How long a row still going may wait for its record, in nanoseconds (the store's own batches are 0.02 s apart).
    let deferral: UInt64

    /// `start`: when the deferral of the first pass begins (monotonic nanoseconds), so that a queue added at once
    /// is not written row by row before it runs.
    init(store: TaskStore, deferral: Double = 0.5, start: UInt64 = DispatchTime.now().uptimeNanoseconds) {
        self.store = store
        self.deferral = UInt64(max(0, deferral) * 1e9)
        state.withLock { $0.lastPass = start }
    }

    /// A new row's id: the store's own, so that it names the same task in every later run and in `history`.
    /// Ids come from blocks the store reserves (one write per 256 rows, none of them another process's); the row
    /// itself is written with the next batch. Nil when the store cannot write (the row then lives in this run only).
    func allocate() -> Int? {
        reserved.withLock { ids -> Int? in
            if ids.isEmpty {
                guard let block = try? store.reserveIDs(Self.reservation) else { return nil }
                ids = block
            }
            defer { ids = ids.dropFirst() }
            return Int(ids.lowerBound)
        }
    }

    /// Room for `count` more rows at once (a list being added).
    func reserve(_ count: Int) {
        state.withLock { s in
            s.facts.reserveCapacity(s.facts.count + count)
            s.records.reserveCapacity(s.records.count + count)
            s.marks.reserveCapacity(s.marks.count + count)
        }
    }

    /// A row to keep from now on: how it was asked for; `record` when the store already holds it.
    func keep(_ id: Int, facts: RowFacts, record: StoredTask? = nil) {
        state.withLock { s in
            s.facts[id] = facts
            if let record { s.records[id] = record }
            s.marks[id] = nil
        }
    }

    /// Writes the rows these events touched, as the model now shows them: those that ended at once, the others
    /// with every row touched since the last pass once `deferral` has gone by. Called after every drain, with or
    /// without events, so that deferred rows are written on time by a loop that keeps draining.
    func observe(_ events: [ModelEvent], model: Model, now: UInt64 = DispatchTime.now().uptimeNanoseconds) {
        var touched: Set<Int> = []
        var conversions: [(from: Int, to: Int)] = []
        var abandoned: [Int] = []  // rows whose pending conversion will never happen
        for event in events {
            switch event {
            case .added(let id, _, _, _, _, _), .saved(let id, _), .note(let id, _), .retrying(let id, _, _, _, _), .refreshed(let id, _, _),
                 .renamed(let id, _, _):
                touched.insert(id)
            case .restored(let row) where !row.isFinished:
                touched.insert(row.id)
            case .engine(let record):
                touched.insert(record.taskIdentifier)
                if case .didBecomeDownloadTask(let new) = record.event {
                    conversions.append((record.taskIdentifier, new))
                    touched.insert(new)
                } else if case .didCompleteWithError = record.event {
                    abandoned.append(record.taskIdentifier)  // a converted data task never completes
                }
            case .queueOrder(let ids):
                touched.formUnion(ids)
            case .tick, .restored, .sessionRateLimit, .taskRateLimit, .segments:
                break
            }
        }
        let writes = state.withLock { s -> [StoredTask] in
            guard !s.stopped else { return [] }
            for id in abandoned where !s.conversions.isEmpty { s.conversions[id] = nil }
            s.deferred.formUnion(touched)
            guard !s.deferred.isEmpty else { return [] }
            let clock = Self.wallClock()
            for (from, to) in conversions where s.facts[to] == nil {
                if var facts = s.facts[from] {
                    facts.kind = .download
                    // Beside its target, where a restart continues it; else placed in the output directory at its end.
                    facts.companions = s.conversions.removeValue(forKey: from)
                    facts.createdAt = clock
                    s.facts[to] = facts
                }
            }
            if now >= s.lastPass && now - s.lastPass >= deferral {
                s.lastPass = now
                return Self.recordsOfDeferred(model: model, clock: clock, in: &s)
            }
            // Before the pass is due, only the rows that ended (and any row the model no longer has, for nothing).
            let ended = touched.filter { id in model.position(of: id).map { model.rows[$0].state == .completed } ?? true }
            guard !ended.isEmpty else { return [] }
            s.deferred.subtract(ended)
            return Self.records(of: ended, model: model, clock: clock, in: &s)
        }
        if !writes.isEmpty { store.update(writes) }
    }

    /// Whether rows wait for a pass: a loop that drains only when events come (the daemon's) drains again after
    /// `deferral` while this is true.
    var hasDeferredRows: Bool { state.withLock { !$0.stopped && !$0.deferred.isEmpty } }

    /// Writes every deferred row now: before a quit stops the keeper (a suspended row must be stored suspended).
    func settle(model: Model) {
        let writes = state.withLock { s -> [StoredTask] in
            guard !s.stopped, !s.deferred.isEmpty else { return [] }
            return Self.recordsOfDeferred(model: model, clock: Self.wallClock(), in: &s)
        }
        if !writes.isEmpty { store.update(writes) }
    }

    /// Every deferred row's record, the deferred set emptied.
    private static func recordsOfDeferred(model: Model, clock: Double, in s: inout State) -> [StoredTask] {
        let due = s.deferred
        s.deferred = []
        return records(of: due, model: model, clock: clock, in: &s)
    }

    /// The records of `ids` that differ from what was last written; kept as the last written.
    private static func records(of ids: Set<Int>, model: Model, clock: Double, in s: inout State) -> [StoredTask] {
        var writes: [StoredTask] = []
        for id in ids {
            guard let facts = s.facts[id], let position = model.position(of: id) else { continue }
            let previous = s.records[id]
            var record = StoredRow.record(model.rows[position], facts: facts, previous: previous, wallClock: clock,
                                          written: s.marks[id])
            // As `StoredRow.record` keeps a checkpoint: not for a file in place or a cancelled row.
            if previous == nil, let resume = s.pendingResume.removeValue(forKey: id), model.rows[position].savedPath == nil,
               record.state != .cancelled {
                record.resumeData = resume
            }
            s.marks[id] = TimelineMark(model.rows[position].timeline)
            if record != previous {
                s.records[id] = record
                writes.append(record)
            }
        }
        return writes
    }

    /// A download's checkpoint, kept in the store too (the file beside the download is read first on a restart).
    func checkpointed(_ id: Int, _ data: Data) {
        let record = state.withLock { s -> StoredTask? in
            guard !s.stopped else { return nil }
            guard var record = s.records[id] else {
                s.pendingResume[id] = data  // taken by the row's first record
                return nil
            }
            record.resumeData = data
            s.records[id] = record
            return record
        }
        if let record { store.update(record) }
    }

    /// Row `id`'s data task is about to become a download written beside `companions.target`.
    func converting(_ id: Int, into companions: DownloadCompanions) {
        state.withLock { $0.conversions[id] = companions }
    }

    /// The row's download goes to other files from now on (nil: to none; its name was taken and no other was free).
    func moved(_ id: Int, to companions: DownloadCompanions?) {
        state.withLock { $0.facts[id]?.companions = companions }
    }

    /// The row was removed with `x`: from the history too.
    func remove(_ id: Int) {
        state.withLock { s in
            s.deferred.remove(id)
            s.pendingResume[id] = nil
            s.facts[id] = nil
            s.records[id] = nil
            s.marks[id] = nil
        }
        store.remove(id: Int64(id))
    }

    /// Quitting cancels these rows' tasks (data tasks: nothing to continue): stored as the next start would end
    /// them, now. They stayed `running` in the store until then, so `sluice history` in between listed tasks
    /// running that no process ran (found by a tester).
    func interrupt(_ ids: [Int]) {
        guard !ids.isEmpty else { return }
        let writes = state.withLock { s -> [StoredTask] in
            guard !s.stopped else { return [] }
            let clock = Self.wallClock()
            return ids.compactMap { id -> StoredTask? in
                guard var record = s.records[id], !record.state.isFinished else { return nil }
                record.end(.cancelled, outcome: Self.interruptedOutcome, at: clock)
                s.records[id] = record
                s.deferred.remove(id)
                return record
            }
        }
        if !writes.isEmpty { store.update(writes) }
    }

    /// How a task the quit cancelled ended, in the store.
    static let interruptedOutcome = "interrupted"

    /// Quitting: what the rows show from here on (cancelled by the quit) is not what they are. The ids reserved
    /// and not given to a row go back, so that the next run numbers on from this one's last.
    func stop() {
        state.withLock { $0.stopped = true }
        store.flush()
        let unused = reserved.withLock { ids -> Range<Int64> in
            defer { ids = ids.upperBound..<ids.upperBound }
            return ids
        }
        store.giveBack(unused)
    }

    /// Seconds since 1970, as the store keeps times.
    static func wallClock() -> Double { Double(WallClock.now.unixNanoseconds) / 1e9 }
}
