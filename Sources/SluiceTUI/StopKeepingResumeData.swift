// Stopping a task so that it can be continued: what quitting the UI and Ctrl-C in `sluice get -o` do.
import SluiceEngine

extension SessionTask {
    /// Cancels; a download keeps its partial file and produces resume data.
    public func stopKeepingResumeData() {
        if let download = self as? DownloadTask {
            download.cancel(byProducingResumeData: { _ in })
        } else {
            cancel()
        }
    }
}
