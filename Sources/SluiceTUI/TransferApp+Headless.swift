// What a process with no screen (the daemon) needs from the app: the events as they come, intents carried out,
// rows removed, and downloads saved where the caller says rather than in the app's one output directory.
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

/// Where a download added from outside is saved.
public enum DownloadDestination: Sendable, Equatable {
    /// Under the URL's name in this directory (absolute), as `-d` saves in the output directory.
    case directory(String)
    /// Exactly this file (absolute); it must not exist yet, unless it is this URL's download left unfinished.
    case file(String)
}

extension TransferApp {
    /// Calls `wake` (on the engine's thread) whenever events arrive while none were waiting: a headless loop
    /// drains then, and sleeps the rest of the time.
    public func onEvents(_ wake: @escaping @Sendable () -> Void) { inbox.onFirstEvent(wake) }

    /// Calls `wake` (on the delegate queue) when a completion leaves nothing running, queued or about to retry.
    public func onIdle(_ wake: @escaping @Sendable () -> Void) { delegate.onIdle.withLock { $0 = wake } }

    public func onAnswer(_ tell: @escaping @Sendable (String) -> Void) { answers.withLock { $0 = tell } }

    /// Moves what the engine reported into `model` and the store, as the UI's loop does; returns the events.
    public func drainEvents(into model: inout Model) -> [ModelEvent] {
        let events = inbox.take()
        model.apply(contentsOf: events)
        keeper?.observe(events, model: model)
        return events
    }

    /// Whether the store keeper holds rows for a later pass: drain again after `storeDeferral` seconds.
    public var storeHasDeferredRows: Bool { keeper?.hasDeferredRows ?? false }
    public var storeDeferral: Double { Double(keeper?.deferral ?? 0) / 1e9 }

    /// Writes every row the keeper deferred, as `model` shows it (before `cancelAll` on a stop).
    public func settleStore(_ model: Model) { keeper?.settle(model: model) }

    /// A note on a row, as the app's own notes are (shown in the UI, kept in the store, sent to attached UIs).
    public func note(_ id: Int, _ text: String) { post(.note(id: id, text)) }

    /// Carries out an intent as a key would; a message when it cannot be done.
    public func carryOut(_ intent: Intent) -> String? { perform(intent) }

    /// Adds a download saved at `destination`; the row's id, or why not.
    /// `split`: connections for its ranges, else the app's `--split`; `request`: this download's own, else the app's.
    public func addDownload(_ text: String, to destination: DownloadDestination, split: Int? = nil,
                            request custom: (@Sendable (URL) -> Request)? = nil) -> Result<Int, AddError> {
        guard let url = ParsedURL.parse(text) else { return .failure(AddError(message: "not a URL sluice can fetch: \(Sanitized.text(text))")) }
        return addDownload(url, to: destination, split: split, request: custom)
    }

    /// Runs `body`, which adds `count` downloads into `directory`, with the directory's names read once for their
    /// claims instead of two lookups each on disk (see `DirectoryNames`; a short list asks the disk), and the
    /// delegate's and the store keeper's tables made large enough for them first.
    public func addingDownloads<T>(into directory: String, count: Int, _ body: () throws -> T) rethrows -> T {
        if count > 1 {
            delegate.reserve(downloads: count)
            keeper?.reserve(count)
        }
        guard let names = DirectoryNames.forList(of: count, in: directory) else { return try body() }
        listings.withLock { $0[directory] = names }
        defer { listings.withLock { $0[directory] = nil } }
        return try body()
    }

    /// The same, for a URL `ParsedURL.parse` accepted.
    public func addDownload(_ url: URL, to destination: DownloadDestination, split: Int? = nil,
                            request custom: (@Sendable (URL) -> Request)? = nil) -> Result<Int, AddError> {
        if let running = delegate.downloadRow(for: url) { return .success(running) }
        let request = (custom ?? makeRequest)(url)
        let companions: DownloadCompanions
        var resumeData: Data?
        var isFree = false
        switch place(url: url, destination, listed: true) {
        case .success(let found): (companions, resumeData, isFree) = (found.companions, found.resumeData, found.isFree)
        case .failure(let problem): return .failure(problem)
        }
        let task = resumeData.flatMap { try? session.downloadTask(with: request, resumeData: $0) }
            ?? session.downloadTask(with: request, partialFile: companions.partialPath, exclusive: isFree)
        task.split = Self.capped(max(task.split, split ?? self.split), url, delegate.hostLimit)
        let managed = ManagedTask(row: delegate.newRow(), task: task, request: request,
                                  kind: .download, companions: companions, hasCheckpoint: resumeData != nil)
        let headers = task.currentRequest.headers.map { HeaderLine($0.name, $0.value) }
        keeper?.keep(managed.row, facts: RowFacts(method: request.method, headers: headers, kind: .download,
                                                   companions: companions, createdAt: StoreKeeper.wallClock()))
        inbox.post(.added(id: managed.row, url: url.absoluteString, kind: .download, requestHeaders: headers,
                          at: DispatchTime.now().uptimeNanoseconds, note: Model.savingTo + companions.target))
        if delegate.track(managed, asks: false) { task.resume() }
        return .success(managed.row)
    }

    /// A new name in the same directory for a download whose name another program took before it started (only a
    /// download placed in a directory creates its partial file at its start); the store keeps where it goes now.
    func placeAgain(_ managed: ManagedTask) -> DownloadCompanions.Claim? {
        guard let old = managed.companions else { return nil }
        let claim = try? place(url: managed.request.url, .directory(old.directory), listed: false).get()
        keeper?.moved(managed.row, to: claim?.companions)
        return claim
    }

    /// The companions of the download: an unfinished one of the same URL found there is continued. `listed`: the
    /// directory's names read for the list being added may answer for the disk (not for a name found taken).
    private func place(url: URL, _ destination: DownloadDestination, listed: Bool) -> Result<DownloadCompanions.Claim, AddError> {
        switch destination {
        case .directory(let directory):
            let names = listed ? listings.withLock { $0[directory] } : nil
            return claims.withLock { claims in
                claims.claim(in: directory, suggested: TaskName.fileName(of: url.absoluteString), url: url.absoluteString,
                             listed: names, isHeld: { delegate.holds(target: $0) })
            }
            .mapError { AddError(message: Sanitized.text($0.message)) }
        case .file(let path):
            let companions = DownloadCompanions(target: path)
            if !delegate.holds(target: path),
               let found = DownloadCompanions.leftOver(in: companions.directory, suggested: companions.name, url: url.absoluteString),
               found.0 == companions {
                return .success(DownloadCompanions.Claim(companions: found.0, resumeData: found.1, attempt: 0, isFree: false))
            }
            var info = stat()
            if lstat(path, &info) == 0 { return .failure(AddError(message: "\(Sanitized.text(path)) already exists; sluice never writes over a file")) }
            let fd = open(companions.partialPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                let reason = errno == EEXIST ? "another download is writing it" : String(cString: strerror(errno))
                return .failure(AddError(message: "cannot create \(Sanitized.text(companions.partialPath)): \(reason)"))
            }
            close(fd)
            return .success(DownloadCompanions.Claim(companions: companions, resumeData: nil, attempt: 0, isFree: false))
        }
    }
}
