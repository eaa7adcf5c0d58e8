// The delegate behind `sluice get` and `sluice put` to standard output (or a device, FIFO or socket): answers the
// disposition, writes chunks, shows progress (of the body received, or for put of the body sent), waits for the end.
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

final class GetDelegate: SessionDataDelegate, SessionDownloadDelegate, @unchecked Sendable {
    private let disposition: ResponseDisposition
    private let sink: FileDescriptorSink
    /// Where the sink writes, for messages: "standard output", or the -o name.
    private let destination: String
    private let progress: ProgressLine?
    private let progressOfSending: Bool
    private let finished = DispatchSemaphore(value: 0)
    // Delegate queue only until `finished` is signalled, then read by the waiting thread.
    private(set) var error: TransferError?
    private(set) var response: Response?
    private(set) var outputFailure: String?
    /// Set before the task starts: true for a response whose body is not written (an error a retry will follow).
    var withholdsBody: (@Sendable (Response) -> Bool)?
    private(set) var withheldBody = false
    /// -I: the response's head is written at the end, in place of a body. Set before the task starts.
    var printsHead = false
    /// The last request's protocol, from the metrics, for -I's status line.
    private var networkProtocol: String?

    init(disposition: ResponseDisposition, sink: FileDescriptorSink, progress: ProgressLine?, ofSending: Bool = false,
         destination: String = "standard output") {
        self.disposition = disposition
        self.sink = sink
        self.destination = destination
        self.progress = progress
        progressOfSending = ofSending
    }

    func urlSession(_ session: Session, task: SessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
                    totalBytesExpectedToSend: Int64) {
        if progressOfSending { progress?.update(received: totalBytesSent, expected: totalBytesExpectedToSend) }
    }

    func urlSession(_ session: Session, dataTask: DataTask, didReceive response: Response,
                    completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) {
        self.response = response
        withheldBody = withholdsBody?(response) ?? false
        completionHandler(disposition)
    }

    func urlSession(_ session: Session, dataTask: DataTask, didReceive data: Data) {
        if withheldBody || printsHead { return }
        if !sink.write(data) {
            outputFailure = sink.failure
            dataTask.cancel()
            return
        }
        if !progressOfSending {
            progress?.update(received: dataTask.countOfBytesReceived, expected: dataTask.countOfBytesExpectedToReceive)
        }
    }

    // MARK: After --disposition becomeDownload: the file goes to the same place the body would have

    func urlSession(_ session: Session, downloadTask: DownloadTask, didWriteData bytesWritten: Int64,
                    totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {
        progress?.update(received: totalBytesWritten, expected: totalBytesExpectedToWrite)
    }

    func urlSession(_ session: Session, downloadTask: DownloadTask, didFinishDownloadingTo location: URL) {
        if let failure = sink.copy(fromFileAt: location.path) { outputFailure = failure }
    }

    func urlSession(_ session: Session, task: SessionTask, didFinishCollecting metrics: TaskMetrics) {
        networkProtocol = metrics.transactions.last?.networkProtocol
    }

    func urlSession(_ session: Session, task: SessionTask, didCompleteWithError error: TransferError?) {
        if printsHead, error == nil, !withheldBody, let response, !sink.write(Data(ResponseHead.text(of: response,
                                                                                               networkProtocol: networkProtocol).utf8)) {
            outputFailure = sink.failure
        }
        if error == nil && !progressOfSending {
            progress?.update(received: task.countOfBytesReceived, expected: task.countOfBytesExpectedToReceive, force: true)
        }
        progress?.end()
        self.error = error
        finished.signal()
    }

    func wait() { finished.wait() }

    /// Resumes `task` and waits for its end (Ctrl-C or SIGTERM cancel it), then turns the outcome into the exit:
    /// 128 + the signal, 1 for a failed transfer or output, 22 for an HTTP error status. `progress` says how far
    /// the task got, for the messages ("after 300 bytes").
    func run(_ task: SessionTask, in session: Session, target: URL, progress: (SessionTask) -> String?) throws {
        let interrupted = SignalTrap.run(stoppingWith: { _ in task.cancel() }) {
            task.resume()
            wait()
        }
        session.finishTasksAndInvalidate()
        if let signal = interrupted {
            throw CLIFailure(code: 128 + signal, message: "interrupted" + (progress(task).map { " after \($0)" } ?? ""))
        }
        if let outputFailure {
            throw CLIFailure(code: 1, message: FileDescriptorSink.failureMessage(outputFailure, writing: "the body to \(destination)"))
        }
        if let error {
            let got = progress(task).map { " (\($0))" } ?? ""
            throw CLIFailure(code: 1, message: Sanitized.text(ErrorText.describe(error, url: target)) + got)
        }
        try CLIFailure.checkStatus(response, target)
    }
}
