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

@Suite struct RetriedDataRowTests {
    /// A retried data task's second response starts the body again: 146 KiB "of 97.7 KiB" was the sum of both.
    @Test func aNewResponseOfADataTaskStartsItsCountOver() throws {
        let url = try #require(URL(string: "http://h/f"))
        let response = Response(url: url, statusCode: 200, headers: HTTPHeaders(), expectedContentLength: 100)
        let added = ModelEvent.added(id: 1, url: "http://h/f", kind: .data, requestHeaders: [], at: 0)
        let events = [added, record(1, .didReceiveResponse(response), at: 1), record(1, .didReceiveData(bytes: 60), at: 2),
                      record(1, .didReceiveResponse(response), at: 3), record(1, .didReceiveData(bytes: 100), at: 4)]
        let row = try #require(model(events).row(1))
        #expect(row.bytes == 100)
        #expect(row.expected == 100)
        #expect(row.chunks == 1)
    }
}
