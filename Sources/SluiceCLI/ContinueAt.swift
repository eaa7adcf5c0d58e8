// curl's -C - for `get -o FILE`: FILE itself is a download another program left half done (curl, wget, a
// browser). It is continued as sluice continues its own: the server is asked first (the whole size, the validators,
// whether it sends parts), then FILE becomes FILE.sluice-part with a checkpoint holding those validators, so the
// resume sends Range and If-Range. Nothing is written over: a complete file is left as it is, and a file that
// cannot be the start of the server's is refused, unchanged.
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

enum ContinueAt {
    enum Decision: Equatable {
        /// The file is the server's whole file already.
        case complete
        /// Continue from the file's end.
        case resume
        /// Why the file cannot be continued from this server.
        case refuse(String)
    }

    /// What to do with a file of `localSize` bytes, from the server's answer to a request for its first byte.
    static func decide(localSize: Int64, server: RefreshCheck.New) -> Decision {
        if server.status >= 400 { return .refuse("the server answered \(server.status)") }
        if let size = server.size {
            if size == localSize { return .complete }
            if localSize > size { return .refuse("it holds \(localSize) bytes, more than the server's \(size): it is not the start of this file") }
        }
        guard server.status == 206 else {
            return .refuse("the server does not send parts of it (it answered \(server.status) to a range request)")
        }
        // Asked for its first byte, it sent other bytes: it would not send the part a resume asks for either (found by
        // a tester: FILE became FILE.sluice-part, and every run failed on the mismatch).
        if let sent = server.sent, sent != 0...0 {
            return .refuse("the server does not send the part asked for (asked for byte 0, it sent bytes \(sent.lowerBound)-\(sent.upperBound))")
        }
        return .resume
    }

    enum Outcome: Equatable {
        case complete(Int64)
        /// FILE is now FILE.sluice-part, its checkpoint written: the usual resume takes it from here.
        case adopted
    }

    /// Adopts `file` (which exists, and has no sluice checkpoint beside it) as the partial download of `request`.
    static func adopt(_ file: OutputFile, request: Request, configuration: SessionConfiguration) throws(CLIFailure) -> Outcome {
        var info = stat()
        guard lstat(file.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw CLIFailure(code: 1, message: "-C -: \(file.name) is not a regular file")
        }
        let size = Int64(info.st_size)
        let server: RefreshCheck.New
        switch URLProbe.answer(request, configuration: configuration) {
        case .success(let answer): server = answer
        case .failure(let error):
            throw CLIFailure(code: 1, message: "-C -: asking the server about \(file.name) failed: \(Sanitized.text(ErrorText.describe(error, url: request.url)))")
        }
        switch decide(localSize: size, server: server) {
        case .complete: return .complete(size)
        case .refuse(let why):
            throw CLIFailure(code: 1, message: "-C -: \(file.name) cannot be continued: \(Sanitized.text(why)); it is left as it was")
        case .resume: break
        }
        let resume = ResumeData(url: request.url.absoluteString, path: file.partialPath, bytesOnDisk: size,
                                etag: server.etag, lastModified: server.lastModified, expectedLength: server.size,
                                adoptedBytes: size)
        // The checkpoint first: a crash between the two steps below leaves FILE, or its bytes under the partial name
        // with the checkpoint that continues them.
        guard file.saveResume(resume.encoded()) else {
            throw CLIFailure(code: 1, message: "-C -: cannot write \(file.resumeShown) beside it")
        }
        // A hard link, not a rename: it never replaces a partial file that is there already.
        guard link(file.path, file.partialPath) == 0 else {
            let reason = errno == EEXIST ? "\(file.partialShown) is in the way" : String(cString: strerror(errno))
            file.removeResume()
            throw CLIFailure(code: 1, message: "-C -: cannot continue \(file.name): \(reason); it is left as it was")
        }
        unlink(file.path)
        return .adopted
    }

}
