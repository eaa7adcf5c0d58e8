// `sluice refresh ID URL` and the UI's `U`: a stopped, failed or queued download continues from a new URL (an
// expired signed link replaced), keeping its bytes only when the new URL serves the same file (`RefreshCheck`).
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
    /// What the row's note says of a refresh's outcome: `problem` is why it was refused, nil when it went on.
    public static func refreshNote(_ problem: String?) -> String {
        problem.map { "refresh refused: " + $0 } ?? "refreshed: going on from the new URL"
    }

    /// Checks the new URL, then moves the row onto it. `done` gets nil once the row goes on from the new URL, or
    /// why not (nothing changed then: the old URL, the partial file and its checkpoint are as they were). A
    /// download an earlier run left failed (an expired link, most often found on a later day) is refreshed too.
    public func refresh(_ id: Int, to text: String, force: Bool, done: @escaping @Sendable (String?) -> Void) {
        guard let url = ParsedURL.parse(text) else { return done("not a URL sluice can fetch: \(Sanitized.text(text))") }
        // This run's row (its task), or an earlier run's failed download (its record, which stays in `revivable`
        // until the row goes on: a removal meanwhile takes it, and nothing is revived). Either is marked as being
        // refreshed until the answer, so that a quit by --exit-when-done waits for it.
        let managed = delegate.beginRefresh(id)
        var found: StoredTask?
        if managed == nil, let record = revivable.withLock({ $0[id] }), let target = record.destination {
            guard delegate.beginEarlierRefresh(id, target: target) else {
                return done("#\(id) is being refreshed already, or its file name is another download's now")
            }
            if PartialFileLock.isHeldElsewhere(DownloadCompanions(target: target).partialPath) {
                delegate.cancelRefresh(id)
                return done("#\(id)'s partial file is being written by another sluice (the daemon, or another UI)")
            }
            found = record
        }
        let earlier = found
        let release: @Sendable () -> Void = { [self] in delegate.cancelRefresh(id) }
        guard let companions = managed?.companions ?? earlier?.destination.map(DownloadCompanions.init(target:)),
              let oldRequest = managed?.request ?? earlier.flatMap(Self.request(of:)) else {
            release()
            return done("#\(id) is not a download of this list, or is being refreshed already")
        }
        // No task: an earlier run's row, or this run's that ended for good (its engine task let go).
        let task = managed?.task
        let ended = task.map { $0.state == .completed } ?? true
        if let task, task.state == .running || task.state == .canceling {
            release()
            return done("#\(id) is running: suspend it first (s), then refresh")
        }
        if managed?.finishedCleanly == true || task?.endedCleanly == true {
            release()
            return done("#\(id) has finished: nothing to refresh")
        }
        var moved = oldRequest
        moved.url = url
        let request = moved
        let oldURL = oldRequest.url.absoluteString
        URLProbe.probe(request, configuration: session.configuration) { [self] result in
            let new: RefreshCheck.New
            switch result {
            case .success(let answer): new = answer
            case .failure(let error):
                release()
                return done("the new URL: " + Sanitized.text(error.message))
            }
            let resume = companions.loadResume(for: oldURL).flatMap(ResumeData.decode)
            var info = stat()
            let partialBytes = lstat(companions.partialPath, &info) == 0 ? Int64(info.st_size) : 0
            let decision: RefreshCheck.Decision
            if let resume {
                decision = RefreshCheck.decide(old: RefreshCheck.Old(size: resume.expectedLength, etag: resume.etag, lastModified: resume.lastModified),
                                               new: new, force: force)
            } else if partialBytes == 0 || force {
                decision = (200...299).contains(new.status) ? .reuse : .refuse("the new URL answers \(new.status), not the file")
            } else {
                decision = .refuse("no checkpoint says which file the \(partialBytes) bytes kept are of: --force to continue anyway")
            }
            if case .refuse(let why) = decision {
                release()
                return done(Sanitized.text(why))
            }
            // The old task stops keeping its bytes (a queued or suspended one), then the row goes on from there.
            if let task, !ended { task.stopKeepingResumeData() }
            let deadline = DispatchTime.now().uptimeNanoseconds + 10_000_000_000
            while let task, task.state != .completed && DispatchTime.now().uptimeNanoseconds < deadline { usleep(10_000) }
            var data = companions.loadResume(for: oldURL)
            if let old = data.flatMap(ResumeData.decode) {
                var moved = old
                moved.url = url.absoluteString
                data = moved.encoded()
                if let data { _ = companions.saveResume(data) }  // a crash from here on resumes from the new URL
            }
            if let earlier {
                guard revivable.withLock({ $0.removeValue(forKey: id) }) != nil, !delegate.isStopping else {
                    release()
                    return done("#\(id) was removed, or sluice is stopping: its partial file is kept, checkpointed for the new URL")
                }
                post(.refreshed(id: id, url: url.absoluteString, at: DispatchTime.now().uptimeNanoseconds))
                revive(earlier, request: request, companions: companions, resumeData: data)
                release()
            } else {
                post(.refreshed(id: id, url: url.absoluteString, at: DispatchTime.now().uptimeNanoseconds))
                delegate.restart(id, request: request, resumeData: data)
            }
            done(nil)
        }
    }

    /// The request an earlier run's record was made with.
    static func request(of record: StoredTask) -> Request? {
        guard let url = URL(string: record.url) else { return nil }
        var headers = HTTPHeaders()
        for header in record.requestHeaders { headers.add(header.name, header.value) }
        return Request(url: url, method: record.method, headers: headers)
    }

    /// An earlier run's failed download goes on in this run, from `request` (its new URL): a row of this run's from
    /// now on, kept by the store and counted in its tally.
    private func revive(_ record: StoredTask, request: Request, companions: DownloadCompanions, resumeData: Data?) {
        let id = Int(record.id)
        let task = resumeData.flatMap { try? session.downloadTask(with: request, resumeData: $0) }
            ?? session.downloadTask(with: request, partialFile: companions.partialPath)
        task.split = max(task.split, split)
        let headers = request.headers.map { HeaderLine($0.name, $0.value) }
        keeper?.keep(id, facts: RowFacts(method: request.method, headers: headers, kind: .download, companions: companions,
                                         createdAt: record.createdAt), record: record)
        endedAtRestore.withLock { _ = $0.remove(id) }
        let managed = ManagedTask(row: id, task: task, request: request, kind: .download, companions: companions,
                                  hasCheckpoint: resumeData != nil)
        if track(managed, queued: true) { task.resume() }
    }
}
