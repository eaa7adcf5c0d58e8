// The file `sluice get -o FILE` writes: checks made before any byte moves, its resume data beside it, and the
// final move that never replaces a file the user has not agreed to lose.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import SluiceEngine
import SluiceTUI
import SluiceViewModel

struct OutputFile {
    /// Where the file goes: the name given, or what a symlink given points to (the link itself stays).
    let path: String
    /// The name as the user gave it, for messages.
    let name: String
    let directory: String
    /// FILE.sluice-part and FILE.sluice-resume, absolute, so that resume data finds the partial file from another
    /// working directory; the names the UI's downloads use too.
    var companions: DownloadCompanions { DownloadCompanions(target: directory + "/" + (path.split(separator: "/").last.map(String.init) ?? path)) }
    var resumePath: String { companions.resumePath }
    var partialPath: String { companions.partialPath }
    /// FILE.sluice-part and FILE.sluice-resume as messages name them (a long FILE's shortened companions in full).
    var partialShown: String { shown(companions.partialPath, SafeFileName.partialSuffix) }
    var resumeShown: String { shown(companions.resumePath, SafeFileName.resumeSuffix) }

    private func shown(_ path: String, _ suffix: String) -> String {
        path == companions.target + suffix ? name + suffix : Sanitized.text(path)
    }

    /// Fails unless the directory exists and the name is usable.
    init(_ path: String, shownAs shown: String? = nil) throws(CLIFailure) {
        name = Sanitized.text(shown ?? path)
        guard !path.isEmpty, !path.hasSuffix("/") else {
            throw CLIFailure(code: 2, message: "-o needs a file name, not \(name)")
        }
        self.path = path
        var given = "."
        if let slash = path.lastIndex(of: "/") {
            let dir = String(path[..<slash])
            given = dir.isEmpty ? "/" : dir
        }
        directory = try Self.checkedDirectory(given, writing: name)
    }

    /// `given` made absolute (so that resume data still finds the partial file from another working directory),
    /// once it is a directory sluice may write in; `what` (sanitized) names what was to be written there.
    static func checkedDirectory(_ given: String, writing what: String) throws(CLIFailure) -> String {
        let directory = realpath(given, nil).map { resolved in
            defer { free(resolved) }
            return String(cString: resolved)
        } ?? given
        var info = stat()
        guard stat(directory, &info) == 0 else {
            throw CLIFailure(code: 1, message: "cannot write \(what): the directory \(Sanitized.text(directory)) does not exist (--create-dirs makes it)")
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw CLIFailure(code: 1, message: "cannot write \(what): \(Sanitized.text(directory)) is not a directory")
        }
        guard access(directory, W_OK) == 0 else {
            let why = errno == EROFS ? "\(Sanitized.text(directory)) is on a read-only file system" : "no permission to write in \(Sanitized.text(directory))"
            throw CLIFailure(code: 1, message: "cannot write \(what): " + why)
        }
        return directory
    }

    var exists: Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// What an interrupted run left beside the file.
    enum LeftOver {
        case none
        /// The engine's resume data for this same URL, as it is.
        case sameURL(Data)
        /// A partial download of another URL: continued from this one only if it serves the same file.
        case otherURL(ResumeData)
    }

    /// Resume data left by an interrupted run, about FILE.sluice-part whatever file it names (see
    /// `DownloadCompanions.checkpoint`); none without that partial file.
    func leftOver(for url: URL) throws(CLIFailure) -> LeftOver {
        switch companions.checkpoint() {
        case .absent: return .none
        case .damaged: throw CLIFailure(code: 1, message: "\(Sanitized.text(resumePath)) is damaged; remove it to start over")
        case .found(let resume): return resume.url == url.absoluteString ? .sameURL(resume.encoded()) : .otherURL(resume)
        }
    }

    /// Written atomically (a crash leaves the old checkpoint or the new one, never half of one).
    func saveResume(_ data: Data) -> Bool { companions.saveResume(data) }

    /// The resume file and a checkpoint a second Ctrl-C cut off before its rename.
    func removeResume() { companions.removeResume() }

    /// Moves the finished download into place; returns why it could not. Without `force` an existing file is
    /// never replaced: `link` fails rather than overwrite, even if the file appeared during the download.
    func moveIn(from temporary: String, force: Bool) -> String? {
        if force {
            return rename(temporary, path) == 0 ? nil : String(cString: strerror(errno))
        }
        if link(temporary, path) == 0 {
            unlink(temporary)
            return nil
        }
        let linkError = errno
        if linkError == EEXIST { return "\(name) appeared during the download; use --force to replace it" }
        // File systems without hard links: check, then rename (the narrow race is the best they allow).
        guard !exists else { return "\(name) already exists" }
        return rename(temporary, path) == 0 ? nil : String(cString: strerror(errno))
    }
}
