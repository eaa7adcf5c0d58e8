// A new start of the UI picks up where the last one stopped: the tasks it finished as history, its unfinished
// downloads resumed from their checkpoints (a suspended one stays suspended, queued ones keep their order).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import SluiceEngine
import SluiceStore
import SluiceViewModel

extension TransferApp {
    /// Brings back the store's tasks; returns how many downloads were resumed or queued again.
    @discardableResult
    public func restore(_ records: [StoredTask]) -> Int {
        let now = DispatchTime.now().uptimeNanoseconds
        var resumed = 0
        // Queued before running ones would reverse the queue: the store lists by priority (queue place), then id.
        for record in records {
            let row = StoredRow.row(record, now: now)
            let facts = RowFacts(method: record.method, headers: row.requestHeaders, kind: row.kind,
                                 companions: record.destination.map(DownloadCompanions.init(target:)),
                                 createdAt: record.createdAt)
            if record.state.isFinished {
                post(.restored(row))
                continue
            }
            guard record.kind == .download, let companions = facts.companions, record.method == "GET",
                  let url = URL(string: record.url), let task = recreate(record, url: url, companions: companions) else {
                // A data task's body went to the screen only, and a converted download kept no checkpoint: neither
                // can continue, so they become history.
                var ended = row
                ended.outcome = .cancelled
                ended.note = "interrupted when sluice stopped; add it again to fetch it"
                keeper?.keep(ended.id, facts: facts, record: record)
                post(.restored(ended))
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
            if track(managed, queued: record.state != .suspended) { task.resume() }
            resumed += 1
        }
        return resumed
    }

    /// The download task that continues `record`: from its checkpoint beside the file, else the store's copy of
    /// it, else from the start into the same partial file.
    private func recreate(_ record: StoredTask, url: URL, companions: DownloadCompanions) -> DownloadTask? {
        var headers = HTTPHeaders()
        for header in record.requestHeaders { headers.add(header.name, header.value) }
        let request = Request(url: url, method: record.method, headers: headers)
        let checkpoint = companions.loadResume(for: record.url) ?? record.resumeData
        let task = checkpoint.flatMap { try? session.downloadTask(with: request, resumeData: $0) }
            ?? session.downloadTask(with: request, partialFile: companions.partialPath)
        task.split = max(task.split, split)
        return task
    }
}
