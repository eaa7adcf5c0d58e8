// The delegate behind `sluice get -o FILE`: progress, the finished file moved into place, resume data kept.
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

final class DownloadDelegate: SessionDataDelegate, SessionDownloadDelegate, @unchecked Sendable {
    private let disposition: ResponseDisposition
    private let output: OutputFile
    private let force: Bool
    private let progress: ProgressLine?
    private let finished = DispatchSemaphore(value: 0)
    // Delegate queue only until `finished` is signalled, then read by the waiting thread.
    private(set) var error: TransferError?
    private(set) var response: Response?
    private(set) var moveFailure: String?
    /// The partial file kept with resume data beside the output, if any.
    private(set) var keptPartial: String?
    private(set) var saved = false
    /// Checks the finished file before it gets its name (`--checksum`); returns what is wrong, or nil.
    var verify: ((String) -> String?)?
    private(set) var verifyFailure: String?
    /// The download continues a file the user had (`-C -`): it gets its name even when `verify` fails.
    var keepsWhatItVerifies = false
    /// When the resume state goes to disk (delegate queue only).
    private var checkpoints = CheckpointClock(waitsAfterFirstBytes: false)

    init(disposition: ResponseDisposition, output: OutputFile, force: Bool, progress: ProgressLine?) {
        self.disposition = disposition
        self.output = output
        self.force = force
        self.progress = progress
    }

    func urlSession(_ session: Session, dataTask: DataTask, didReceive response: Response,
                    completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) {
        self.response = response
        completionHandler(disposition)
    }

    func urlSession(_ session: Session, downloadTask: DownloadTask, didResumeAtOffset fileOffset: Int64,
                    expectedTotalBytes: Int64) {
        checkpoint(downloadTask)  // the new response's validators
        progress?.resumed(at: fileOffset)
        let name = Sanitized.text(output.path)
        if fileOffset > 0 {
            StandardStreams.error("sluice: resuming \(name) at \(ByteCountText.format(fileOffset))\n")
        } else {
            StandardStreams.error("sluice: the server sent \(name) whole again; starting over\n")
        }
    }

    func urlSession(_ session: Session, downloadTask: DownloadTask, didWriteData bytesWritten: Int64,
                    totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {
        progress?.update(received: totalBytesWritten, expected: totalBytesExpectedToWrite)
        // The resume state goes to disk after the bytes it names (see CheckpointClock).
        if checkpoints.bytesArrived(now: DispatchTime.now().uptimeNanoseconds) { checkpoint(downloadTask) }
    }

    /// Writes the task's resume state beside the output; nothing once the download has ended.
    private func checkpoint(_ task: DownloadTask) {
        task.checkpoint { [output] data in
            if let data { _ = output.saveResume(data) }
        }
    }

    func urlSession(_ session: Session, downloadTask: DownloadTask, didFinishDownloadingTo location: URL) {
        response = downloadTask.response
        if let status = response?.statusCode, status >= 400 { return }  // an error page is not the file asked for
        if let failure = verify?(location.path) {
            verifyFailure = failure  // the engine removes the file when this returns: nothing gets the name
            guard keepsWhatItVerifies else { return }  // but bytes the user had before are never removed with it
        }
        moveFailure = output.moveIn(from: location.path, force: force)
        saved = moveFailure == nil
    }

    func urlSession(_ session: Session, task: SessionTask, didCompleteWithError error: TransferError?) {
        if error == nil, let download = task as? DownloadTask {
            progress?.update(received: download.countOfBytesWritten, expected: download.countOfBytesExpectedToWrite, force: true)
        }
        progress?.end()
        self.error = error
        if let data = error?.resumeData, output.saveResume(data) {
            keptPartial = ResumeData.decode(data)?.path
        } else if saved || verifyFailure != nil {
            output.removeResume()
        }
        finished.signal()
    }

    func wait() { finished.wait() }
}
