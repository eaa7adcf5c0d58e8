// A new start of the UI picks up where the last one stopped: the tasks it finished as history, its unfinished
// downloads resumed from their checkpoints (a suspended one stays suspended, queued ones keep their order).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import SluiceEngine
import SluiceStore
import SluiceViewModel

extension TransferApp {
    /// Brings back the store's tasks; returns how many downloads were resumed or queued again.
    @discardableResult
    public func restore(_ records: [StoredTask]) -> Int {
        let now = DispatchTime.now().uptimeNanoseconds
        var resumed = 0
        // One partial file, one task: when two unfinished records name the same file (a `--fresh` run added the
        // URL again), the newest continues it and the older become history.
        var newest: [String: Int64] = [:]
        for record in records where !record.state.isFinished {
            if let destination = record.destination { newest[destination] = max(newest[destination] ?? 0, record.id) }
        }
        // Queued before running ones would reverse the queue: the store lists by priority (queue place), then id.
        for record in records {
            let row = StoredRow.row(record, now: now)
            let facts = RowFacts(method: record.method, headers: row.requestHeaders, kind: row.kind,
                                 companions: record.destination.map(DownloadCompanions.init(target:)),
                                 createdAt: record.createdAt)
            if record.state.isFinished {
                if record.state == .failed, record.kind == .download, record.destination != nil {
                    revivable.withLock { $0[row.id] = record }
                }
                post(.restored(row))
                continue
            }
            if let companions = facts.companions, companions.isInPlace {
                companions.removeAll()  // a partial name left beside the file (the same file) and the checkpoint
                // The file is there and its partial file gone: it was completed after the store last heard of it
                // (during the quit, by `sluice get -o`, or before a kill -9 reached the store). Not fetched twice.
                var saved = row
                saved.outcome = .finished
                saved.savedPath = companions.target
                saved.note = "completed after the store last heard of it"
                end(saved, facts: facts, record: record, state: .completed, outcome: "saved")
                continue
            }
            // Another sluice (a second UI on this store, the daemon) is fetching it now: its row, not this one's.
            if let companions = facts.companions, PartialFileLock.isHeldElsewhere(companions.partialPath) {
                heldElsewhere.withLock { $0 += 1 }
                continue
            }
            guard record.kind == .download, let companions = facts.companions, record.method == "GET",
                  newest[companions.target] == record.id,
                  let url = URL(string: record.url), let task = recreate(record, url: url, companions: companions) else {
                // A data task's body went to the screen only, a converted download kept no checkpoint, and an older
                // record of a file a newer one continues has nothing left: they become history.
                var ended = row
                ended.outcome = .cancelled
                ended.note = "interrupted when sluice stopped; add it again to fetch it"
                end(ended, facts: facts, record: record, state: .cancelled, outcome: StoreKeeper.interruptedOutcome)
                continue
            }
            var live = row
            live.state = .suspended
            live.outcome = nil
            live.hasStarted = record.state == .suspended
            live.name = TaskName.of(url: record.url)
            live.savedPath = nil
            live.note = "resumed from \(companions.partialPath)"
            keeper?.keep(live.id, facts: facts, record: record)
            post(.restored(live))
            let managed = ManagedTask(row: live.id, task: task, request: task.originalRequest, kind: .download,
                                      companions: companions, hasCheckpoint: true)
            // A suspended task stays suspended (r resumes it); the others take their turn in the queue.
            if record.state == .suspended { suspendedAtRestore.withLock { _ = $0.insert(live.id) } }
            if track(managed, queued: record.state != .suspended) { task.resume() }
            resumed += 1
        }
        return resumed
    }

    /// A restored row that will not run again: shown as history, and written so (once) to the store.
    private func end(_ row: TaskRow, facts: RowFacts, record: StoredTask, state: StoredTask.State, outcome: String) {
        var ended = record
        ended.end(state, outcome: outcome, at: StoreKeeper.wallClock())
        keeper?.keep(row.id, facts: facts, record: ended)
        keeper?.store.update(ended)
        endedAtRestore.withLock { _ = $0.insert(row.id) }
        post(.restored(row))
    }

    /// The download task that continues `record`: from its checkpoint beside the file, else the store's copy of
    /// it, else from the start into the same partial file.
    private func recreate(_ record: StoredTask, url: URL, companions: DownloadCompanions) -> DownloadTask? {
        guard let request = Self.request(of: record) else { return nil }
        let checkpoint = companions.loadResume(for: record.url) ?? record.resumeData
        let task = checkpoint.flatMap { try? session.downloadTask(with: request, resumeData: $0) }
            ?? session.downloadTask(with: request, partialFile: companions.partialPath)
        task.split = max(task.split, split)
        return task
    }
}
