// The app as the screen's driver: its own transfers, in this process.
#if canImport(Glibc)
import Glibc
#endif
import SluiceEngine
import SluiceStore
import SluiceViewModel

extension TransferApp: InterfaceDriver {
    @discardableResult public func forget(_ id: Int) -> String? {
        // An earlier run's failed download has no task here; its record says where its partial file is.
        let earlier = earlierFiles(revivable.withLock { $0.removeValue(forKey: id) })
        let companions = delegate.forget(id) ?? earlier
        keeper?.remove(id)
        var info = stat()
        guard let partial = companions?.partialPath, lstat(partial, &info) == 0 else { return nil }
        return "removed #\(id); its partial file \(Sanitized.text(partial)) is kept: adding the URL again goes on from it"
    }

    /// The files an earlier run's failed download left, while they are still its own: its checkpoint names its URL,
    /// and no download of this app or of another sluice writes them (another URL may have taken the name since).
    private func earlierFiles(_ record: StoredTask?) -> DownloadCompanions? {
        guard let record, let target = record.destination else { return nil }
        let companions = DownloadCompanions(target: target)
        guard companions.loadResume(for: record.url) != nil, !delegate.holds(target: target),
              !PartialFileLock.isHeldElsewhere(companions.partialPath) else { return nil }
        return companions
    }

    /// A split download's ranges as they stand; nil for anything else.
    public func segments(of id: Int) -> [DownloadSegment]? {
        guard let download = delegate.task(id) as? DownloadTask, download.split > 1 else { return nil }
        return download.ranges
    }

    /// Forgets an ended row and deletes its saved file (a regular file only) and any partial file it left.
    public func purge(_ id: Int, savedPath: String?) -> String {
        let companions = delegate.managed(id)?.companions ?? earlierFiles(revivable.withLock { $0[id] })
        forget(id)
        var deleted: [String] = []
        var info = stat()
        if let savedPath, lstat(savedPath, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, unlink(savedPath) == 0 {
            deleted.append(Sanitized.text(savedPath))
        }
        if let companions, access(companions.partialPath, F_OK) == 0 || access(companions.resumePath, F_OK) == 0 {
            companions.removeAll()
            deleted.append("its partial file")
        }
        return deleted.isEmpty ? "removed #\(id); no file of it was left" : "removed #\(id) and deleted " + deleted.joined(separator: " and ")
    }

    /// Downloads keep their partial files and checkpoints; data tasks are cancelled. When every task had ended,
    /// how they ended is kept for the exit status (`--exit-when-done`, as a plain run's).
    public func quit(model: Model) {
        if isDone {
            let history = endedAtRestore.withLock { $0 }
            endedTally.withLock { $0 = PlainRun.tally(model.rows, leavingOut: history) }
        }
        keeper?.settle(model: model)
        cancelAll()
    }

    /// How the run's tasks ended, when the UI was left with every one of them ended; nil otherwise.
    public var tallyAtQuit: PlainRun? { endedTally.withLock { $0 } }

    public func stopDaemon() -> String? { "not attached to a daemon" }

    public var ended: String? { nil }

    public var storeTrouble: String? { keeper?.store.writeError.map(Sanitized.text) }

    public var isDone: Bool { allCompleted && !delegate.hasRetriesInHand && inbox.isEmpty }
}
