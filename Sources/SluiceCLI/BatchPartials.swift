// The partial files of `sluice get --output-dir` (and -O): each download writes NAME.sluice-part beside its target,
// NAME taken from its URL, with a checkpoint at most a second behind the bytes, as `-o` and `sluice -d` do. A
// kill -9, then the same command again, goes on from there; a Ctrl-C keeps them for that. Before, these downloads
// went to a hidden temporary file that a kill -9 left behind for good and a rerun never used (found by a tester).
// Owned by a BatchDelegate and used on its delegate queue only.
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
import SluiceTUI
import SluiceViewModel

final class BatchPartials {
    private let directory: String
    /// The directory's names read once for a long list (see `DirectoryNames`).
    private let listed: DirectoryNames?
    /// By position: where its download writes.
    private var companions: [Int: DownloadCompanions] = [:]
    /// The targets this batch's downloads claimed: not free for another of them.
    private var held: Set<String> = []
    private var claims = ClaimCounter()
    /// By task: when its resume state goes to disk (see `wrote`).
    private var checkpoints: [Int: CheckpointClock] = [:]
    /// The downloads running or waiting, by task: a Ctrl-C stops them keeping their partial files.
    private var live: [Int: DownloadTask] = [:]
    /// The positions whose checkpoint file may be there (written, or found): only theirs are removed (two unlinks
    /// of names never made cost a small file four system calls).
    private var checkpointed: Set<Int> = []
    /// The positions whose last attempt left a partial file, with its checkpoint.
    private var keptAt: Set<Int> = []
    /// How many partial files are left for the same command again.
    var kept: Int { keptAt.count }

    init(directory: String, count: Int) {
        self.directory = directory
        listed = DirectoryNames.forList(of: count, in: directory)
    }

    /// The download task of `position`'s attempt: beside its target (an earlier run's partial file of the same URL
    /// is continued), or nil when no name could be claimed (the engine's temporary file then, as before).
    func task(for position: Int, url: URL, request: Request, in session: Session) -> DownloadTask? {
        if let placed = companions[position] {  // an attempt after one that kept nothing: the same partial file
            return track(session.downloadTask(with: request, partialFile: placed.partialPath), position)
        }
        let held = self.held
        guard case .success(let claim) = claims.claim(in: directory, suggested: TaskName.fileName(of: url.absoluteString),
                                                      url: url.absoluteString, listed: listed, isHeld: { held.contains($0) }) else { return nil }
        self.held.insert(claim.companions.target)
        companions[position] = claim.companions
        if claim.resumeData != nil { checkpointed.insert(position) }
        let task = claim.resumeData.flatMap { try? session.downloadTask(with: request, resumeData: $0) }
            ?? session.downloadTask(with: request, partialFile: claim.companions.partialPath, exclusive: claim.isFree)
        return track(task, position)
    }

    /// A retry from the resume data its last attempt kept.
    func resumed(_ task: DownloadTask) { live[task.taskIdentifier] = task }

    private func track(_ task: DownloadTask, _ position: Int) -> DownloadTask {
        live[task.taskIdentifier] = task
        return task
    }

    /// Bytes written: the resume state goes to disk a second after the first bytes and then once a second, after
    /// the bytes it names (see CheckpointClock). A download whose bytes stop within its first second has none: the
    /// same command again starts its partial file over.
    func wrote(_ task: DownloadTask, at position: Int) {
        guard let placed = companions[position],
              checkpoints[task.taskIdentifier, default: CheckpointClock(waitsAfterFirstBytes: true)]
                .bytesArrived(now: DispatchTime.now().uptimeNanoseconds) else { return }
        checkpointed.insert(position)
        task.checkpoint { data in if let data { placed.saveResume(data) } }
    }

    /// Where `position`'s download writes, if it claimed a name.
    func companions(of position: Int) -> DownloadCompanions? { companions[position] }

    /// The file is in place: its checkpoint goes (the engine removes the partial name once this returns).
    func saved(_ position: Int) {
        if checkpointed.remove(position) != nil { companions[position]?.removeResume() }
        keptAt.remove(position)
        savedCount += 1
    }

    /// How many of the list's files are in place.
    private(set) var savedCount = 0

    /// The attempt ended: a partial file it kept gets its last checkpoint, one it did not keep loses its own.
    func ended(_ task: SessionTask, at position: Int, error: TransferError?) {
        live[task.taskIdentifier] = nil
        checkpoints[task.taskIdentifier] = nil
        guard let placed = companions[position] else { return }
        var info = stat()
        if let data = error?.resumeData, placed.saveResume(data) {
            checkpointed.insert(position)
            keptAt.insert(position)
        } else if error != nil, checkpointed.contains(position), lstat(placed.partialPath, &info) == 0 {
            // Stopped before it opened its file (waiting for a place when Ctrl-C came): the earlier checkpoint still
            // names the bytes there. Removing it started the next run of the name over, at byte 0 (found in review).
            keptAt.insert(position)
        } else {
            if checkpointed.remove(position) != nil { placed.removeResume() }
            keptAt.remove(position)
        }
    }

    /// The URL is done with (saved, failed or given up): a later attempt of it is not made.
    func finished(_ position: Int) { companions[position] = nil }

    /// Ctrl-C or SIGTERM: every download stops keeping its partial file and checkpoint, for the same command again.
    func stopKeepingPartials() {
        for task in live.values { task.stopKeepingResumeData() }
    }
}
