// Keeps the store in step with the model: each row the engine's events touched is written again (the store
// batches, so a burst of progress costs one write), from the UI's thread, never the transfer's.
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

final class StoreKeeper: Sendable {
    let store: TaskStore

    private struct State {
        var facts: [Int: RowFacts] = [:]
        var records: [Int: StoredTask] = [:]
        /// What each record's timeline text was made from (see `TimelineMark`).
        var marks: [Int: TimelineMark] = [:]
        /// After quit: the rows keep the state they had, so the next start resumes them.
        var stopped = false
    }

    private let state = Locked(State())
    /// Ids the store reserved for this process and not yet given to a row.
    private let reserved = Locked<Range<Int64>>(0..<0)
    /// How many ids one reservation takes: one write transaction per this many new rows.
    private static let reservation = 256

    init(store: TaskStore) { self.store = store }

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

    /// A row to keep from now on: how it was asked for; `record` when the store already holds it.
    func keep(_ id: Int, facts: RowFacts, record: StoredTask? = nil) {
        state.withLock { s in
            s.facts[id] = facts
            if let record { s.records[id] = record }
            s.marks[id] = nil
        }
    }

    /// Writes the rows these events touched, as the model now shows them.
    func observe(_ events: [ModelEvent], model: Model) {
        var touched: Set<Int> = []
        var conversions: [(from: Int, to: Int)] = []
        for event in events {
            switch event {
            case .added(let id, _, _, _, _), .saved(let id, _), .note(let id, _), .retrying(let id, _, _, _, _), .refreshed(let id, _, _):
                touched.insert(id)
            case .restored(let row) where !row.isFinished:
                touched.insert(row.id)
            case .engine(let record):
                touched.insert(record.taskIdentifier)
                if case .didBecomeDownloadTask(let new) = record.event {
                    conversions.append((record.taskIdentifier, new))
                    touched.insert(new)
                }
            case .queueOrder(let ids):
                touched.formUnion(ids)
            case .tick, .restored, .sessionRateLimit, .taskRateLimit, .segments:
                break
            }
        }
        guard !touched.isEmpty else { return }
        let clock = Self.wallClock()
        let writes = state.withLock { s -> [StoredTask] in
            guard !s.stopped else { return [] }
            for (from, to) in conversions where s.facts[to] == nil {
                if var facts = s.facts[from] {
                    facts.kind = .download
                    facts.companions = nil  // placed in the output directory when it ends, as `d` always did
                    facts.createdAt = clock
                    s.facts[to] = facts
                }
            }
            var writes: [StoredTask] = []
            for id in touched {
                guard let facts = s.facts[id], let row = model.row(id) else { continue }
                let previous = s.records[id]
                let record = StoredRow.record(row, facts: facts, previous: previous, wallClock: clock, written: s.marks[id])
                s.marks[id] = TimelineMark(row.timeline)
                if record != previous {
                    s.records[id] = record
                    writes.append(record)
                }
            }
            return writes
        }
        store.update(writes)
    }

    /// A download's checkpoint, kept in the store too (the file beside the download is read first on a restart).
    func checkpointed(_ id: Int, _ data: Data) {
        let record = state.withLock { s -> StoredTask? in
            guard !s.stopped, var record = s.records[id] else { return nil }
            record.resumeData = data
            s.records[id] = record
            return record
        }
        if let record { store.update(record) }
    }

    /// The row was removed with `x`: from the history too.
    func remove(_ id: Int) {
        state.withLock { s in
            s.facts[id] = nil
            s.records[id] = nil
            s.marks[id] = nil
        }
        store.remove(id: Int64(id))
    }

    /// Quitting: what the rows show from here on (cancelled by the quit) is not what they are.
    func stop() {
        state.withLock { $0.stopped = true }
        store.flush()
    }

    /// Seconds since 1970, as the store keeps times.
    static func wallClock() -> Double { Double(WallClock.now.unixNanoseconds) / 1e9 }
}
