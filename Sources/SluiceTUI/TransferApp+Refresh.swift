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
import SluiceViewModel

extension TransferApp {
    /// What the row's note says of a refresh's outcome: `problem` is why it was refused, nil when it went on.
    public static func refreshNote(_ problem: String?) -> String {
        problem.map { "refresh refused: " + $0 } ?? "refreshed: going on from the new URL"
    }

    /// Checks the new URL, then moves the row onto it. `done` gets nil once the row goes on from the new URL, or
    /// why not (nothing changed then: the old URL, the partial file and its checkpoint are as they were).
    public func refresh(_ id: Int, to text: String, force: Bool, done: @escaping @Sendable (String?) -> Void) {
        guard let url = ParsedURL.parse(text) else { return done("not a URL sluice can fetch: \(Sanitized.text(text))") }
        guard let managed = delegate.beginRefresh(id), let companions = managed.companions else {
            return done("#\(id) is not a download of this list, or is being refreshed already")
        }
        let task = managed.task
        let ended = task.state == .completed
        if task.state == .running || task.state == .canceling {
            delegate.cancelRefresh(id)
            return done("#\(id) is running: suspend it first (s), then refresh")
        }
        if ended && task.error == nil && (task.response?.statusCode ?? 0) < 400 {
            delegate.cancelRefresh(id)
            return done("#\(id) has finished: nothing to refresh")
        }
        var moved = managed.request
        moved.url = url
        let request = moved
        let oldURL = managed.request.url.absoluteString
        URLProbe.probe(request, configuration: session.configuration) { [self] result in
            let new: RefreshCheck.New
            switch result {
            case .success(let answer): new = answer
            case .failure(let error):
                delegate.cancelRefresh(id)
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
                delegate.cancelRefresh(id)
                return done(Sanitized.text(why))
            }
            // The old task stops keeping its bytes (a queued or suspended one), then the row goes on from there.
            if !ended { task.stopKeepingResumeData() }
            let deadline = DispatchTime.now().uptimeNanoseconds + 10_000_000_000
            while task.state != .completed && DispatchTime.now().uptimeNanoseconds < deadline { usleep(10_000) }
            var data = companions.loadResume(for: oldURL)
            if let old = data.flatMap(ResumeData.decode) {
                var moved = old
                moved.url = url.absoluteString
                data = moved.encoded()
                if let data { _ = companions.saveResume(data) }  // a crash from here on resumes from the new URL
            }
            post(.refreshed(id: id, url: url.absoluteString, at: DispatchTime.now().uptimeNanoseconds))
            delegate.restart(id, request: request, resumeData: data)
            done(nil)
        }
    }
}
