// What the UI's delegate keeps for conversions stays under its overall cap, and a completed task gives it back.
// Real tasks of a real session, never resumed: the delegate is called as the engine would call it.
import Foundation
import SluiceEngine
@testable import SluiceTUI
import Testing

@Suite struct TUIDelegateTests {
    @Test func keptBytesStayUnderTheOverallCapAndAreGivenBack() throws {
        let delegate = TUIDelegate(outputDirectory: NSTemporaryDirectory(), concurrency: 6, keepTotalLimit: 3 << 20) { _ in }
        let session = Session(configuration: .default, delegate: nil)
        defer { session.invalidateAndCancel() }
        let url = try #require(URL(string: "http://127.0.0.1:9/body.bin"))
        let tasks = (0..<3).map { _ in session.dataTask(with: url) }
        let response = Response(url: url, statusCode: 200, headers: [:], expectedContentLength: 2 << 20)
        for task in tasks {
            _ = delegate.track(task, asks: false)
            delegate.urlSession(session, dataTask: task, didReceive: response) { _ in }
        }
        let chunk = Data(repeating: 7, count: 512 << 10)
        for task in tasks { for _ in 0..<4 { delegate.urlSession(session, dataTask: task, didReceive: chunk) } }
        let kept = delegate.kept
        #expect(kept.total <= 3 << 20, "at most the overall cap is kept: \(kept.total)")
        #expect(kept.total == 2 << 20, "the first task kept its whole body; the others gave theirs up")
        #expect(kept.overflowed == 2)
        delegate.urlSession(session, task: tasks[0], didCompleteWithError: nil)
        #expect(delegate.kept.total == 0, "a completed task's bytes are let go")
    }

    /// `d` chose a name for the data task's download, and the task ended before it could become one: the name is no
    /// longer held for it, so a later download may take it.
    @Test func aConversionThatNeverHappenedHoldsItsNameNoLonger() throws {
        let delegate = TUIDelegate(outputDirectory: NSTemporaryDirectory(), concurrency: 6) { _ in }
        let session = Session(configuration: .default, delegate: nil)
        defer { session.invalidateAndCancel() }
        let url = try #require(URL(string: "http://127.0.0.1:9/body.bin"))
        let task = session.dataTask(with: url)
        _ = delegate.track(task, asks: false)
        let target = NSTemporaryDirectory() + "body.bin"
        delegate.converting(task.taskIdentifier, into: DownloadCompanions(target: target))
        #expect(delegate.holds(target: target), "held while the conversion is pending")
        delegate.urlSession(session, task: task, didCompleteWithError: nil)
        #expect(!delegate.holds(target: target))
    }
}

