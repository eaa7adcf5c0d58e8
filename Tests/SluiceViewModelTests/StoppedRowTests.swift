// A download stopped with its partial file kept (a quit, Ctrl-C) is "stopped", not "cancelled": the next run goes on.
import Foundation
@testable import SluiceEngine
import SluiceViewModel
import Testing

@Suite struct StoppedRowTests {
    private func ended(kind: TaskKind, resumeData: Data?) -> TaskRow? {
        var error = TransferError(.cancelled, "cancelled")
        error.resumeData = resumeData
        let added = ModelEvent.added(id: 1, url: "http://h/f", kind: kind, requestHeaders: [], at: 0)
        return model([added, record(1, .stateChanged(.completed), at: 1), record(1, .didCompleteWithError(error), at: 1)]).row(1)
    }

    @Test func aDownloadThatKeptItsResumeDataIsStopped() {
        let row = ended(kind: .download, resumeData: Data("resume".utf8))
        #expect(row?.outcome == .cancelled)
        #expect(row?.keptForResume == true)
        #expect(row?.stateWord == "stopped")
    }

    @Test func withoutResumeDataOrAsADataTaskItIsCancelled() {
        #expect(ended(kind: .download, resumeData: nil)?.stateWord == "cancelled")
        #expect(ended(kind: .data, resumeData: Data("x".utf8))?.stateWord == "cancelled")
    }
}
