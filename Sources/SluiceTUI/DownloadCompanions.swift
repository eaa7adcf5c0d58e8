// A download's files beside its target: FILE.sluice-part (the bytes so far) and FILE.sluice-resume (what the
// engine needs to continue them, checkpointed atomically). The same names as `sluice get -o FILE`, so either can
// continue what the other began.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import SluiceEngine
import SluiceViewModel

public struct DownloadCompanions: Sendable, Equatable {
    /// Where the finished file goes (absolute).
    public let target: String
    public var partialPath: String { stem + SafeFileName.partialSuffix }
    public var resumePath: String { stem + SafeFileName.resumeSuffix }
    /// The partial file's name in its directory.
    public var partialName: String { Self.lastComponent(of: partialPath) }

    /// The longest companion suffix: the checkpoint's temporary name (see `saveResume`).
    private static let longestSuffix = SafeFileName.resumeDraftSuffix.utf8.count
    /// What the companions' names start with: the target, or for a name too long to take their suffixes within a
    /// file name's 255 bytes, its first bytes and a hash of it all. A 250-byte `-o` name failed with "File name too
    /// long" though the file itself could have it, as curl gives it (found by a tester).
    private var stem: String {
        let name = target.utf8[Self.nameStart(in: target)...]
        guard name.count + Self.longestSuffix > 255 else { return target }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a
        for byte in name { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let digits = String(hash, radix: 16)
        let tag = "~" + String(repeating: "0", count: 16 - digits.count) + digits
        // The first bytes, cut where a character starts (a UTF-8 continuation byte is 10xxxxxx).
        var end = name.index(name.startIndex, offsetBy: 255 - Self.longestSuffix - tag.utf8.count)
        while end > name.startIndex, name[end] & 0xC0 == 0x80 { end = name.index(before: end) }
        return String(decoding: target.utf8[..<end], as: UTF8.self) + tag
    }

    public init(target: String) { self.target = target }

    /// The target's directory and file name.
    public var directory: String {
        guard let slash = Self.lastSlash(in: target) else { return "." }
        return slash == target.startIndex ? "/" : String(decoding: target.utf8[..<slash], as: UTF8.self)
    }
    public var name: String { Self.lastComponent(of: target) }

    // Paths are split at their last "/" byte: a search by Character walked grapheme breaks, 7,000 instructions for
    // each name a list's claims made (callgrind, issue 11).
    private static func lastSlash(in path: String) -> String.Index? { path.utf8.lastIndex(of: UInt8(ascii: "/")) }

    private static func nameStart(in path: String) -> String.Index {
        lastSlash(in: path).map { path.utf8.index(after: $0) } ?? path.startIndex
    }

    private static func lastComponent(of path: String) -> String {
        String(decoding: path.utf8[nameStart(in: path)...], as: UTF8.self)
    }

    /// A name `claim` found for a download.
    public struct Claim: Sendable {
        public let companions: DownloadCompanions
        /// An earlier run's checkpoint of the same URL there, to continue.
        public let resumeData: Data?
        /// The suffix taken (`name.attempt`; 0: the plain name).
        public let attempt: Int
        /// No partial file is there: the download makes it, exclusively, when it starts (see `claim`).
        public let isFree: Bool
    }

    /// Where a download of `url` named `suggested` goes in `directory`: an earlier run's unfinished download of the
    /// same URL there is continued (its checkpoint returned), else the first free name (`name`, `name.1`...): one
    /// with neither a file nor a partial file, and not held by a download of this process (`isHeld`) or of another
    /// (the partial file's lock). Nothing is created here: the download creates its partial file when it starts,
    /// exclusively, so a queue of thousands leaves no empty files waiting (aria2's way), and a name another process
    /// took in between fails that download instead of sharing the file. A partial file under the plain name with no checkpoint (a run killed in its
    /// first second) is started over in place. Two `lstat`s for a new name. The search starts at `first`
    /// (`name.first`): a caller that claimed `name.k` already knows the names below it are taken, and a list of
    /// thousands of downloads of one name would otherwise try each taken name again (quadratic). `listed`: the
    /// directory's names read once for a list of downloads; a name it lists neither the file nor the partial file
    /// of is free without asking the disk (see `DirectoryNames`).
    public static func claim(in directory: String, suggested: String?, url: String, from first: Int = 0,
                             listed: DirectoryNames? = nil, isHeld: (String) -> Bool) -> Result<Claim, PlacementError> {
        let name = SafeFileName.sanitize(suggested)
        var info = stat()
        for attempt in first..<first + 10_000 {
            let candidate = SafeFileName.candidate(name, attempt: attempt)
            let companions = DownloadCompanions(target: directory + "/" + candidate)
            guard !isHeld(companions.target) else { continue }
            if let listed, !listed.contains(candidate), !listed.contains(companions.partialName) {
                return .success(Claim(companions: companions, resumeData: nil, attempt: attempt, isFree: true))
            }
            guard lstat(companions.target, &info) != 0 else { continue }
            if lstat(companions.partialPath, &info) != 0 {
                guard errno == ENOENT else {
                    return .failure(PlacementError(message: "cannot use \(companions.partialPath): \(String(cString: strerror(errno)))"))
                }
                return .success(Claim(companions: companions, resumeData: nil, attempt: attempt, isFree: true))
            }
            if PartialFileLock.isHeldElsewhere(companions.partialPath) { continue }  // another process's download
            if let resume = companions.loadResume(for: url) {
                return .success(Claim(companions: companions, resumeData: resume, attempt: attempt, isFree: false))
            }
            if attempt == 0, lstat(companions.resumePath, &info) != 0 {
                return .success(Claim(companions: companions, resumeData: nil, attempt: attempt, isFree: false))
            }
        }
        return .failure(PlacementError(message: "no free name for \(name) in \(directory)"))
    }

    /// A name whose partial file does not exist yet, for a download whose first bytes are already here (a data
    /// task converted to one): it cannot continue an earlier run's partial file, so such names are passed over.
    public static func claimFree(in directory: String, suggested: String?, url: String,
                                 isHeld: (String) -> Bool) -> Result<Claim, PlacementError> {
        var first = 0
        while true {
            switch claim(in: directory, suggested: suggested, url: url, from: first, isHeld: isHeld) {
            case .success(let found) where found.isFree: return .success(found)
            case .success(let found): first = found.attempt + 1
            case .failure(let problem): return .failure(problem)
            }
        }
    }

    /// What a rerun of the same command finds: the download of `url` that an earlier run left under the name
    /// (partial file and checkpoint, the file itself absent), to be continued; or a partial file without a
    /// checkpoint (a run killed before its first second), to be started over in place. Nil when neither, or when
    /// another process is writing that partial file: then `reserve` picks a free name.
    public static func leftOver(in directory: String, suggested: String?, url: String) -> (DownloadCompanions, Data?)? {
        let companions = DownloadCompanions(target: directory + "/" + SafeFileName.sanitize(suggested))
        var info = stat()
        guard lstat(companions.target, &info) != 0, lstat(companions.partialPath, &info) == 0,
              (info.st_mode & S_IFMT) == S_IFREG, !PartialFileLock.isHeldElsewhere(companions.partialPath) else { return nil }
        if let resume = companions.loadResume(for: url) { return (companions, resume) }
        var checkpoint = stat()
        guard lstat(companions.resumePath, &checkpoint) != 0 else { return nil }  // another URL's download
        return (companions, nil)
    }

    /// The download is in place: a regular file at the target (a link to one counts) and no partial file beside
    /// it, or one that is the same file (linked into place, and stopped before the partial name was removed).
    public var isInPlace: Bool {
        var file = stat()
        guard stat(target, &file) == 0, (file.st_mode & S_IFMT) == S_IFREG else { return false }
        var partial = stat()
        guard lstat(partialPath, &partial) == 0 else { return true }
        return partial.st_ino == file.st_ino && partial.st_dev == file.st_dev
    }

    /// Written to a temporary name, synced, and renamed: a crash or a power cut leaves the old checkpoint or the
    /// new one, never half of one.
    @discardableResult
    public func saveResume(_ data: Data) -> Bool {
        let temporary = stem + SafeFileName.resumeDraftSuffix
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return false }
        let written = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        close(fd)
        guard written == data.count, synced, rename(temporary, resumePath) == 0 else {
            unlink(temporary)
            return false
        }
        return true
    }

    /// What the checkpoint beside the target says.
    public enum Checkpoint: Equatable {
        /// No checkpoint, or no partial file of this pair's own to continue.
        case absent
        /// A checkpoint that is not resume data.
        case damaged
        /// Resume data about this pair's partial file (see `ResumeData.placed`).
        case found(ResumeData)
    }

    /// The checkpoint, made to name this pair's own partial file (a regular file, not a link), whatever file it
    /// names itself: a pair copied or moved from elsewhere names the original's, and a checkpoint planted by a
    /// server (through a download's name) can name any file of the user's.
    public func checkpoint() -> Checkpoint {
        guard let data = FileManager.default.contents(atPath: resumePath) else { return .absent }
        guard let resume = ResumeData.decode(data) else { return .damaged }
        var info = stat()
        guard lstat(partialPath, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return .absent }
        return .found(resume.placed(at: partialPath, size: Int64(info.st_size)))
    }

    /// The last checkpoint, if it is readable resume data for `url`, about this pair's own partial file.
    public func loadResume(for url: String) -> Data? {
        guard case .found(let resume) = checkpoint(), resume.url == url else { return nil }
        return resume.encoded()
    }

    /// The checkpoint and a checkpoint cut off before its rename.
    public func removeResume() {
        unlink(resumePath)
        unlink(stem + SafeFileName.resumeDraftSuffix)
    }

    /// Everything but the target: after a cancel, or once the file is in place.
    public func removeAll() {
        unlink(partialPath)
        removeResume()
    }

    /// Links the finished bytes into place without replacing anything: the target, or name.1... if a file took
    /// that name meanwhile. The path it got, or why not. `finished` itself stays: it is the engine's download file,
    /// which the engine removes once the delegate's didFinishDownloadingTo returns (removing it here too cost every
    /// download a second unlink).
    public func linkIn(from finished: String) -> Result<String, PlacementError> {
        if link(finished, target) == 0 { return .success(target) }
        // Taken meanwhile: the next free name. No hard links here (or another failure): DownloadPlacement renames
        // when the file system cannot link.
        return DownloadPlacement.link(finished, into: directory, suggested: name)
    }
}
