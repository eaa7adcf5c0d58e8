// Task priority orders the tasks that wait for a connection (one HTTP/1.1 connection per host) or for a place
// among the session's running tasks (`maximumConcurrentTasks`): the high-priority task resumed last reaches the
// scenario server before the low ones resumed earlier.
import Dispatch
import Foundation
@testable import SluiceEngine
import SluiceScenarioServer
import SluiceLock
import Testing

/// Holds the answer to the first response until the test lets it go, so the others are all waiting by then.
private final class HoldingFirst: SessionDataDelegate, @unchecked Sendable {
    let held = Locked<(@Sendable (ResponseDisposition) -> Void)?>(nil)
    let completed = Locked(0)
    let errors = Locked<[TransferError]>([])
    let firstPath: String

    init(firstPath: String) { self.firstPath = firstPath }

    func urlSession(_ session: Session, dataTask: DataTask, didReceive response: Response,
                    completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) {
        if dataTask.originalRequest.url.absoluteString.hasSuffix(firstPath) {
            held.withLock { $0 = completionHandler }
        } else {
            completionHandler(.allow)
        }
    }

    func urlSession(_ session: Session, task: SessionTask, didCompleteWithError error: TransferError?) {
        if let error { errors.withLock { $0.append(error) } }
        completed.withLock { $0 += 1 }
    }
}

@Suite struct PriorityTests {
    /// Six tasks to one host, the first held at its response while five more are resumed (then `afterResume`
    /// runs); the order their requests reached the server, and the errors they ended with.
    func runOrdered(_ configure: (inout SessionConfiguration) -> Void, afterResume: ([DataTask]) -> Void = { _ in })
        async throws -> (order: [String], errors: [TransferError]) {
        let server = try Servers.shared()
        let token = UUID().uuidString.prefix(8)
        let first = "/bytes/64?\(token)-first"
        let delegate = HoldingFirst(firstPath: first)
        var configuration = SessionConfiguration.default
        configuration.httpMaximumConnectionsPerHost = 1
        configure(&configuration)
        let session = Session(configuration: configuration, delegate: delegate)
        defer { session.finishTasksAndInvalidate() }
        session.dataTask(with: server.url(first)).resume()
        #expect(await eventually(10) { delegate.held.withLock { $0 != nil } }, "the first response never came")
        var tasks: [DataTask] = []
        for (name, priority) in [("low1", Float(0.1)), ("low2", 0.1), ("mid", 0.5), ("low3", 0.1), ("high", 0.9)] {
            let task = session.dataTask(with: server.url("/bytes/64?\(token)-\(name)"))
            task.priority = priority
            tasks.append(task)
        }
        for task in tasks { task.resume() }
        afterResume(tasks)
        // The loop reads its commands in order: every start is in before this answer lets the connection go.
        delegate.held.withLock { $0 }?(.allow)
        #expect(await eventually(10) { delegate.completed.withLock { $0 } == 6 }, "not every task completed")
        let order = server.requestOrder(containing: String(token)).map { $0.components(separatedBy: "-").last ?? "" }
        return (order, delegate.errors.withLock { $0 })
    }

    @Test func theHighestPriorityWaitingTaskStartsFirst() async throws {
        let (order, errors) = try await runOrdered { $0.httpVersion = .http1_1 }
        #expect(order == ["first", "high", "mid", "low1", "low2", "low3"])
        #expect(errors.isEmpty, "\(errors)")
    }

    @Test func cleartextHTTPWaitsByPriorityByDefault() async throws {
        let (order, errors) = try await runOrdered { _ in }
        #expect(order == ["first", "high", "mid", "low1", "low2", "low3"])
        #expect(errors.isEmpty, "\(errors)")
    }

    @Test func aCancelledWaitingTaskNeverStarts() async throws {
        // Cancelled after its resume, while it waits: it completes, cancelled, without a request.
        let (order, errors) = try await runOrdered({ $0.httpVersion = .http1_1 }) { tasks in tasks[1].cancel() }
        #expect(order == ["first", "high", "mid", "low1", "low3"])
        #expect(errors.map(\.code) == [.cancelled])
    }

    /// What a task waits for: one of its origin's connections, or one of the session's places.
    enum Wait: CaseIterable, Sendable {
        case connection, place

        func limit(_ configuration: inout SessionConfiguration) {
            switch self {
            case .connection:
                configuration.httpMaximumConnectionsPerHost = 1
            case .place:
                configuration.httpMaximumConnectionsPerHost = 0  // no origin limit: only the session's
                configuration.maximumConcurrentTasks = 1
            }
        }
    }

    @Test func theSessionsTaskLimitStartsWaitingTasksByPriority() async throws {
        let (order, errors) = try await runOrdered { Wait.place.limit(&$0) }
        #expect(order == ["first", "high", "mid", "low1", "low2", "low3"])
        #expect(errors.isEmpty, "\(errors)")
    }

    @Test func aTaskCancelledWhileItWaitsForAPlaceNeverStarts() async throws {
        let (order, errors) = try await runOrdered({ Wait.place.limit(&$0) }) { tasks in tasks[1].cancel() }
        #expect(order == ["first", "high", "mid", "low1", "low3"])
        #expect(errors.map(\.code) == [.cancelled])
    }

    @Test(arguments: Wait.allCases) func aTaskSuspendedWhileWaitingStartsSuspended(_ wait: Wait) async throws {
        let server = try Servers.shared()
        let token = UUID().uuidString.prefix(8)
        let first = "/bytes/64?\(token)-first"
        let delegate = HoldingFirst(firstPath: first)
        var configuration = SessionConfiguration.default
        wait.limit(&configuration)
        let session = Session(configuration: configuration, delegate: delegate)
        defer { session.finishTasksAndInvalidate() }
        session.dataTask(with: server.url(first)).resume()
        #expect(await eventually(10) { delegate.held.withLock { $0 != nil } }, "the first response never came")
        let paused = session.dataTask(with: server.url("/bytes/64?\(token)-paused"))
        let other = session.dataTask(with: server.url("/bytes/64?\(token)-other"))
        paused.priority = 1
        paused.resume()
        other.resume()
        paused.suspend()
        delegate.held.withLock { $0 }?(.allow)
        #expect(await eventually(10) { delegate.completed.withLock { $0 } == 1 }, "the first task did not complete")
        #expect(paused.state == .suspended)
        paused.resume()
        #expect(await eventually(10) { delegate.completed.withLock { $0 } == 3 }, "the resumed task did not complete")
        #expect(delegate.errors.withLock { $0 }.isEmpty)
        // It had the connection first (its priority) and kept it while suspended; the other went after it.
        #expect(server.requestOrder(containing: String(token)).map { $0.components(separatedBy: "-").last ?? "" }
                == ["first", "paused", "other"])
    }

    @Test func theListOrdersByPriorityThenArrival() {
        var list = ConnectionWaitList(limit: 1)
        let admitted = [list.admit(1, to: "a", priority: 0.5), list.admit(2, to: "a", priority: 0.1),
                        list.admit(3, to: "a", priority: 0.9), list.admit(4, to: "a", priority: 0.1),
                        list.admit(5, to: "b", priority: 0.1)]
        #expect(admitted == [true, false, false, false, true], "another origin has its own connections")
        let removed = [list.remove(4, from: "a"), list.remove(4, from: "a")]
        #expect(removed == [true, false])
        let released = [list.release("a"), list.release("a"), list.release("a")]
        #expect(released == [3, 2, nil])
        let again = list.admit(6, to: "a", priority: 0)
        #expect(again, "the connection is free again")
        #expect(list.isEmpty)
    }

    @Test func theSessionsPlacesGoByPriorityThenArrival() throws {
        let session = Session(configuration: .default)
        defer { session.invalidateAndCancel() }
        let url = try #require(URL(string: "http://127.0.0.1:9/x"))
        let tasks = [0.5, 0.1, 0.9, 0.1, 0.1].map { priority -> DataTask in  // never resumed: only their ids count
            let task = session.dataTask(with: url)
            task.priority = Float(priority)
            return task
        }
        var places = TaskPlaces(limit: 1)
        var admitted: [Bool] = []
        for task in tasks { admitted.append(places.admit(task)) }
        #expect(admitted == [true, false, false, false, false])
        #expect(places.isWaiting(tasks[3].taskIdentifier) && !places.isWaiting(tasks[0].taskIdentifier))
        let removed = [places.remove(tasks[3].taskIdentifier), places.remove(tasks[3].taskIdentifier)]
        #expect(removed[0] === tasks[3] && removed[1] == nil, "removed once")
        var released: [Int?] = []
        for _ in 0..<4 { released.append(places.release()?.taskIdentifier) }
        #expect(released == [tasks[2].taskIdentifier, tasks[1].taskIdentifier, tasks[4].taskIdentifier, nil])
        #expect(places.taken == 0 && places.isEmpty)
        let again = places.admit(tasks[0])
        #expect(again, "the place is free again")
        var unlimited = TaskPlaces(limit: 0)
        var all: [Bool] = []
        for task in tasks { all.append(unlimited.admit(task)) }
        #expect(all.allSatisfy { $0 } && unlimited.taken == 5, "0 is no limit")
    }

    @Test func onlyRequestsThatNeedTheirOwnConnectionWait() {
        var configuration = SessionConfiguration.default
        let https = URL(string: "https://Example.org/x")!
        let http = URL(string: "http://example.org:8080/x")!
        #expect(ConnectionWaitList.origin(of: https, configuration) == nil, "https may be one more HTTP/2 stream")
        #expect(ConnectionWaitList.origin(of: http, configuration) == "http://example.org:8080")
        #expect(ConnectionWaitList.origin(of: URL(string: "data:,x")!, configuration) == nil)
        configuration.httpVersion = .http1_1
        #expect(ConnectionWaitList.origin(of: https, configuration) == "https://example.org:443")
        configuration.httpVersion = .http2PriorKnowledge
        #expect(ConnectionWaitList.origin(of: http, configuration) == nil)
        configuration.httpMaximumConnectionsPerHost = 0
        configuration.httpVersion = .http1_1
        #expect(ConnectionWaitList.origin(of: http, configuration) == nil)
    }
}
