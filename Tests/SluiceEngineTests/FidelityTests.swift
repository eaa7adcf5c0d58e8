// Where URLSession's documented rules decide: who hears which delegate call, what invalidation releases and
// lists, what a bodiless POST sends, how many redirects are followed.
import Dispatch
import Foundation
@testable import SluiceEngine
import SluiceScenarioServer
import SluiceLock
import Testing

/// A session delegate that implements everything and records the calls by name.
final class CallLog: SessionDataDelegate, @unchecked Sendable {
    let calls = Locked<[String]>([])
    let queue = DispatchQueue(label: "test.calls")

    var names: [String] { calls.withLock { $0 } }
    private func note(_ name: String) { calls.withLock { $0.append(name) } }

    func urlSession(_ session: Session, didBecomeInvalidWithError error: TransferError?) { note("invalid") }
    func urlSession(_ session: Session, task: SessionTask, didCompleteWithError error: TransferError?) { note("complete") }
    func urlSession(_ session: Session, task: SessionTask, willPerformHTTPRedirection response: Response,
                    newRequest request: Request, completionHandler: @escaping @Sendable (Request?) -> Void) {
        note("redirect")
        completionHandler(request)
    }
    func urlSession(_ session: Session, task: SessionTask, didFinishCollecting metrics: TaskMetrics) { note("metrics") }
    func urlSession(_ session: Session, dataTask: DataTask, didReceive response: Response,
                    completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) {
        note("response")
        completionHandler(.allow)
    }
    func urlSession(_ session: Session, dataTask: DataTask, didReceive data: Data) { note("data") }
}

/// A task delegate that implements nothing of its own.
final class SilentTaskDelegate: SessionDataDelegate {}

@Suite struct FidelityTests {
    /// A completion handler replaces the response and data calls only: redirects and metrics still reach the
    /// session delegate, and the handler, not the delegate, hears the end.
    @Test func aCompletionHandlerTaskStillAsksTheSessionDelegateAboutRedirects() async throws {
        let server = try Servers.shared()
        let log = CallLog()
        let session = Session(delegate: log, delegateQueue: log.queue)
        defer { session.finishTasksAndInvalidate() }
        let body = Locked<Data?>(nil)
        session.dataTask(with: server.url("/redirect/2")) { data, _, _ in body.withLock { $0 = data } }.resume()
        #expect(await eventually { body.withLock { $0 } != nil })
        #expect(body.withLock { $0 } == patternBytes(count: 16))
        #expect(log.names == ["redirect", "redirect", "metrics"])
    }

    /// A task delegate that implements nothing falls back to the session delegate, method by method.
    @Test func anEmptyTaskDelegateFallsBackToTheSessionDelegate() async throws {
        let server = try Servers.shared()
        let log = CallLog()
        let session = Session(delegate: log, delegateQueue: log.queue)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: server.url("/redirect/1"))
        task.delegate = SilentTaskDelegate()
        task.resume()
        #expect(await eventually { log.names.contains("complete") })
        #expect(log.names.filter { $0 != "data" } == ["redirect", "response", "metrics", "complete"])
        #expect(log.names.contains("data"))
    }

    /// Once `didBecomeInvalidWithError` has been delivered, the session lets its delegate go.
    @Test func anInvalidatedSessionReleasesItsDelegate() async throws {
        weak var weakDelegate: CallLog?
        let session: Session
        do {
            let log = CallLog()
            weakDelegate = log
            session = Session(delegate: log, delegateQueue: log.queue)
        }
        session.finishTasksAndInvalidate()
        #expect(await eventually { weakDelegate == nil }, "the invalidated session still holds its delegate")
        #expect(session.delegate == nil)
    }

    /// Invalidating the shared session has no effect, as URLSession documents.
    @Test func theSharedSessionCannotBeInvalidated() async throws {
        let server = try Servers.shared()
        Session.shared.finishTasksAndInvalidate()
        Session.shared.invalidateAndCancel()
        let (data, _) = try await Session.shared.data(from: server.url("/bytes/10"))
        #expect(data == patternBytes(count: 10))
    }

    /// Right after `invalidateAndCancel` no task is listed: cancelled and completed ones are not outstanding.
    @Test func noTaskIsListedAfterInvalidateAndCancel() async throws {
        let server = try Servers.shared()
        let session = Session()
        let tasks = (0..<3).map { i in session.dataTask(with: server.url("/stall?n=\(i)")) }
        tasks.forEach { $0.resume() }
        #expect(await session.allTasks.count == 3)
        session.invalidateAndCancel()
        #expect(await session.allTasks.isEmpty)
    }

    /// A POST with an empty body names no content type: nothing was asked for.
    @Test func anEmptyPostAddsNoContentType() async throws {
        let server = try Servers.shared()
        let session = Session()
        defer { session.finishTasksAndInvalidate() }
        let request = Request(url: server.url("/headers"), method: "POST", body: Data())
        let (data, _) = try await session.data(for: request)
        let text = String(decoding: data, as: UTF8.self).lowercased()
        #expect(!text.contains("content-type"), "sent: \(text)")
    }

    /// Twenty redirects are followed (URLSession and the Fetch standard), the twenty-first is not.
    @Test func twentyRedirectsAreFollowed() async throws {
        let server = try Servers.shared()
        #expect(SessionConfiguration.default.maximumRedirects == 20)
        let session = Session()
        defer { session.finishTasksAndInvalidate() }
        let (data, _) = try await session.data(from: server.url("/redirect/20"))
        #expect(data == patternBytes(count: 16))
        await #expect(throws: TransferError.self) { _ = try await session.data(from: server.url("/redirect/21")) }
    }
}
