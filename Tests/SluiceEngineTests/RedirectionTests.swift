// willPerformHTTPRedirection against the scenario server: asked once per redirect, before any response; followed,
// changed, refused or answered late; and the method rules of the proposed request, one at a time.
import Foundation
@testable import SluiceEngine
import SluiceScenarioServer
import Synchronization
import SluiceLock
import Testing

/// Records the delegate flow and answers each redirect with `answer` (nil: keep the handler to answer later).
final class RedirectRecorder: SessionDataDelegate, @unchecked Sendable {
    struct State {
        var calls: [String] = []
        var proposed: [Request] = []
        var body = Data()
        var error: TransferError?
        var completions = 0
        var held: [@Sendable (Request?) -> Void] = []
    }

    let state = Locked(State())
    let queue = DispatchQueue(label: "test.redirect")
    private let answer: @Sendable (Response, Request) -> Request??

    /// `answer` returns .some(request) to follow it, .some(nil) to refuse, nil to hold the handler.
    init(answer: @escaping @Sendable (Response, Request) -> Request?? = { _, request in .some(request) }) {
        self.answer = answer
    }

    func urlSession(_ session: Session, task: SessionTask, willPerformHTTPRedirection response: Response,
                    newRequest request: Request, completionHandler: @escaping @Sendable (Request?) -> Void) {
        state.withLock { s in
            s.calls.append("redirect \(response.statusCode ?? 0)")
            s.proposed.append(request)
        }
        if let decided = answer(response, request) {
            completionHandler(decided)
        } else {
            state.withLock { $0.held.append(completionHandler) }
        }
    }

    func urlSession(_ session: Session, dataTask: DataTask, didReceive response: Response,
                    completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) {
        state.withLock { $0.calls.append("response \(response.statusCode ?? 0)") }
        completionHandler(.allow)
    }

    func urlSession(_ session: Session, dataTask: DataTask, didReceive data: Data) {
        state.withLock { $0.body.append(data) }
    }

    func urlSession(_ session: Session, task: SessionTask, didCompleteWithError error: TransferError?) {
        state.withLock { s in
            s.calls.append("complete")
            s.error = error
            s.completions += 1
        }
    }

    var snapshot: State { state.withLock { $0 } }

    func waitFor(_ condition: @escaping @Sendable (State) -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
        let done = await eventually(15) { self.state.withLock { condition($0) } }
        // The calls that did come: a rare failure under a full run is otherwise a bare timeout.
        if !done {
            Issue.record("the expected delegate calls did not come within 15 s; came: \(snapshot.calls)", sourceLocation: sourceLocation)
        }
        return done
    }

    func run(_ request: Request, log: EventLog? = nil) async -> (State, SessionTask)? {
        let session = Session(delegate: self, delegateQueue: queue, eventMonitor: log?.monitor)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: request)
        task.resume()
        guard await waitFor({ $0.completions > 0 }) else { return nil }
        return (snapshot, task)
    }
}

@Suite struct RedirectionTests {
    @Test func everyRedirectIsAskedBeforeTheFinalResponse() async throws {
        let server = try Servers.shared()
        let log = EventLog()
        guard let (s, task) = await RedirectRecorder().run(Request(url: server.url("/redirect/3")), log: log) else { return }
        #expect(s.calls == ["redirect 302", "redirect 302", "redirect 302", "response 200", "complete"])
        #expect(s.proposed.map(\.url.path) == ["/redirect/2", "/redirect/1", "/bytes/16"])
        #expect(s.body == patternBytes(count: 16))
        #expect(s.error == nil)
        #expect(task.currentRequest.url.path == "/bytes/16")
        #expect(log.names.filter { $0 == "willPerformHTTPRedirection" }.count == 3)
        #expect(log.events.contains(.redirectAnswer(server.url("/bytes/16"))))
    }

    @Test func refusingKeepsTheRedirectResponseAndItsBody() async throws {
        let server = try Servers.shared()
        let target = "/bytes/16?refused=\(UUID().uuidString)"  // no other test asks for it
        let recorder = RedirectRecorder { _, _ in .some(nil) }
        guard let (s, task) = await recorder.run(Request(url: server.url("/redirect/1?to=\(target)"))) else { return }
        #expect(s.calls == ["redirect 302", "response 302", "complete"])
        #expect(String(decoding: s.body, as: UTF8.self) == "redirect 1 with 302\n")
        #expect(task.response?.statusCode == 302)
        #expect(task.response?.headers["Location"] == target)
        #expect(server.requestCount(target) == 0)
    }

    @Test func theDelegateMayChangeTheRequest() async throws {
        let server = try Servers.shared()
        let recorder = RedirectRecorder { _, request in
            var changed = request
            changed.url = server.url("/bytes/32")
            return .some(changed)
        }
        guard let (s, task) = await recorder.run(Request(url: server.url("/redirect/1"))) else { return }
        #expect(s.body == patternBytes(count: 32))
        #expect(task.currentRequest.url.path == "/bytes/32")
    }

    @Test func aLateAnswerHoldsEverythingUntilItComes() async throws {
        let server = try Servers.shared()
        let recorder = RedirectRecorder { _, _ in nil }
        let session = Session(delegate: recorder, delegateQueue: recorder.queue)
        defer { session.finishTasksAndInvalidate() }
        session.dataTask(with: server.url("/redirect/1")).resume()
        guard await recorder.waitFor({ !$0.held.isEmpty }) else { return }
        // The task cannot move on without the answer: still nothing but the question, whenever this runs.
        let (calls, handler) = recorder.state.withLock { ($0.calls, $0.held[0]) }
        #expect(calls == ["redirect 302"])
        handler(recorder.snapshot.proposed[0])
        guard await recorder.waitFor({ $0.completions > 0 }) else { return }
        #expect(recorder.snapshot.calls == ["redirect 302", "response 200", "complete"])
        #expect(recorder.snapshot.body == patternBytes(count: 16))
    }

    @Test func a303TurnsAPostIntoAGetWithoutItsBody() async throws {
        let server = try Servers.shared()
        let request = Request(url: server.url("/redirect/1?status=303&to=/echo"), method: "POST",
                              headers: ["Content-Type": "application/octet-stream"], body: Data(repeating: 7, count: 5000))
        guard let (s, task) = await RedirectRecorder().run(request) else { return }
        #expect(task.response?.headers["X-Request-Method"] == "GET")
        #expect(s.body.isEmpty)
        #expect(s.proposed.first?.method == "GET")
        #expect(s.proposed.first?.headers["Content-Type"] == nil)
    }

    @Test func a307KeepsTheMethodAndTheBody() async throws {
        let server = try Servers.shared()
        let body = Data((0..<5000).map { UInt8($0 % 251) })
        let request = Request(url: server.url("/redirect/1?status=307&to=/echo"), method: "POST", body: body)
        guard let (s, task) = await RedirectRecorder().run(request) else { return }
        #expect(task.response?.headers["X-Request-Method"] == "POST")
        #expect(s.body == body)
    }

    @Test func aRedirectToAFileURLIsNotFollowed() async throws {
        let server = try Servers.shared()
        guard let (s, _) = await RedirectRecorder().run(Request(url: server.url("/redirect/1?to=file:///etc/hostname"))) else { return }
        #expect(s.error?.code == .unsupportedURL)
        #expect(s.body.isEmpty)
        #expect(s.calls == ["redirect 302", "complete"])
    }

    @Test func pastTheLimitTheDelegateIsNotAskedAgain() async throws {
        let server = try Servers.shared()
        let recorder = RedirectRecorder()
        var configuration = SessionConfiguration.default
        configuration.maximumRedirects = 2
        Session(configuration: configuration, delegate: recorder, delegateQueue: recorder.queue)
            .dataTask(with: server.url("/redirect/5")).resume()
        guard await recorder.waitFor({ $0.completions > 0 }) else { return }
        #expect(recorder.snapshot.calls == ["redirect 302", "redirect 302", "complete"])
        #expect(recorder.snapshot.error?.code == .tooManyRedirects)
    }

    @Test func aRedirectBodyThatNeverComesTimesOutWhileFollowing() async throws {
        let server = try Servers.shared()
        let recorder = RedirectRecorder()
        let request = Request(url: server.url("/redirect/1?delay=60000"), timeoutInterval: 1)  // room to connect under load
        guard let (s, _) = await recorder.run(request) else { return }
        #expect(s.error?.code == .timedOut)
        #expect(s.calls == ["redirect 302", "complete"])
    }

    @Test func theResourceTimeoutCountsFromTheFirstRequest() async throws {
        let server = try Servers.shared()
        var configuration = SessionConfiguration.default
        configuration.timeoutIntervalForResource = 1.5
        let recorder = RedirectRecorder { _, _ in nil }
        let session = Session(configuration: configuration, delegate: recorder, delegateQueue: recorder.queue)
        defer { session.finishTasksAndInvalidate() }
        session.dataTask(with: server.url("/redirect/1?to=/drip%3Fbytes=3000%26chunk=100%26interval=10")).resume()
        guard await recorder.waitFor({ !$0.held.isEmpty }) else { return }
        try await Task.sleep(for: .milliseconds(1300))
        // 1.3 s spent on the question, and the final body alone takes 0.3 s: 1.5 s for the task cannot suffice.
        recorder.state.withLock { $0.held[0] }(recorder.snapshot.proposed[0])
        guard await recorder.waitFor({ $0.completions > 0 }) else { return }
        #expect(recorder.snapshot.error?.code == .timedOut)
    }

    @Test func aSuspendedTaskStaysSuspendedAcrossTheRedirect() async throws {
        let server = try Servers.shared()
        let recorder = RedirectRecorder { _, _ in nil }
        let session = Session(delegate: recorder, delegateQueue: recorder.queue)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: server.url("/redirect/1"))
        task.resume()
        guard await recorder.waitFor({ !$0.held.isEmpty }) else { return }
        task.suspend()
        recorder.state.withLock { $0.held[0] }(recorder.snapshot.proposed[0])
        // Suspended before the answer: the new request may start, but no response reaches the delegate.
        let early = await eventually(0.5) { recorder.snapshot.calls.count > 1 }
        #expect(!early)
        task.resume()
        guard await recorder.waitFor({ $0.completions > 0 }) else { return }
        #expect(recorder.snapshot.calls == ["redirect 302", "response 200", "complete"])
    }
}

@Suite struct RedirectionRuleTests {
    let from = URL(string: "http://a.test/form")!
    let to = URL(string: "http://a.test/next")!

    func post() -> Request {
        Request(url: from, method: "POST", headers: ["Content-Type": "text/plain", "Authorization": "Bearer x"],
                body: Data("hi".utf8))
    }

    @Test func only301302303307And308Redirect() {
        #expect([301, 302, 303, 307, 308].allSatisfy { Redirection.redirects($0) })
        #expect(![200, 300, 304, 305, 306, 400].contains { Redirection.redirects($0) })
        #expect(!Redirection.redirects(nil))
    }

    @Test func a303MakesAGetWithoutBody() {
        let next = Redirection.request(after: post(), status: 303, location: to)
        #expect(next.method == "GET" && next.body == nil && next.headers["Content-Type"] == nil && next.url == to)
    }

    @Test func a303KeepsHead() {
        let next = Redirection.request(after: Request(url: from, method: "HEAD"), status: 303, location: to)
        #expect(next.method == "HEAD")
    }

    @Test func a303MakesAPutAGet() {
        let next = Redirection.request(after: Request(url: from, method: "PUT", body: Data("x".utf8)), status: 303, location: to)
        #expect(next.method == "GET" && next.body == nil)
    }

    @Test func a301Or302MakesOnlyAPostAGet() {
        #expect(Redirection.request(after: post(), status: 301, location: to).method == "GET")
        #expect(Redirection.request(after: post(), status: 302, location: to).method == "GET")
        let put = Request(url: from, method: "PUT", body: Data("x".utf8))
        #expect(Redirection.request(after: put, status: 302, location: to).method == "PUT")
        #expect(Redirection.request(after: put, status: 302, location: to).body == Data("x".utf8))
    }

    @Test func a307Or308KeepsMethodBodyAndHeaders() {
        for status in [307, 308] {
            let next = Redirection.request(after: post(), status: status, location: to)
            #expect(next.method == "POST" && next.body == Data("hi".utf8) && next.headers["Content-Type"] == "text/plain")
        }
    }

    @Test func credentialsStayWithTheirOrigin() {
        #expect(Redirection.request(after: post(), status: 307, location: to).headers["Authorization"] == "Bearer x")
        for other in ["http://b.test/next", "https://a.test/next", "http://a.test:8080/next"] {
            let next = Redirection.request(after: post(), status: 307, location: URL(string: other)!)
            #expect(next.headers["Authorization"] == nil, "\(other)")
        }
        #expect(Redirection.sameOrigin(URL(string: "http://A.test:80/x")!, to))
    }

    @Test func locationsResolveAgainstTheAnsweringURL() {
        let base = URL(string: "http://a.test/dir/page?q=1")!
        #expect(Redirection.target(location: "/root", from: base)?.absoluteString == "http://a.test/root")
        #expect(Redirection.target(location: "next", from: base)?.absoluteString == "http://a.test/dir/next")
        #expect(Redirection.target(location: "//b.test/x", from: base)?.absoluteString == "http://b.test/x")
        #expect(Redirection.target(location: "https://c.test/y", from: base)?.absoluteString == "https://c.test/y")
        #expect(Redirection.target(location: "/a b", from: base)?.absoluteString == "http://a.test/a%20b")
        #expect(Redirection.target(location: "", from: base) == nil)
    }

    @Test func theBodyIsDroppedOnlyWhenTheMethodBecomesGet() {
        #expect(Redirection.dropsBody(from: post(), to: Redirection.request(after: post(), status: 303, location: to)))
        #expect(!Redirection.dropsBody(from: post(), to: Redirection.request(after: post(), status: 307, location: to)))
        let get = Request(url: from)
        #expect(!Redirection.dropsBody(from: get, to: Redirection.request(after: get, status: 302, location: to)))
    }
}
