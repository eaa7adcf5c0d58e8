// Shared test pieces: one scenario server per run, a recording delegate, and waiting with a deadline.
import Dispatch
import Foundation
import SluiceEngine
import SluiceScenarioServer
import Synchronization
import SluiceLock
import Testing

enum Servers {
    private static let started = Locked<ScenarioServer?>(nil)

    /// The scenario server every test shares; started on first use, on 127.0.0.1 and a free port.
    static func shared() throws -> ScenarioServer {
        try started.withLock { s in
            if let s { return s }
            let server = try ScenarioServer.start()
            s = server
            return server
        }
    }
}

/// Waits for a condition, checking every few milliseconds, and gives up at the deadline instead of hanging.
func eventually(_ seconds: Double = 10, _ condition: () -> Bool) async -> Bool {
    let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
    while !condition() {
        if DispatchTime.now().uptimeNanoseconds > deadline { return false }
        try? await Task.sleep(nanoseconds: 2_000_000)
    }
    return true
}

/// Records every delegate call in order, checks each happens on the delegate queue, and answers the response
/// with `plan` (nil: keep the handler for the test to call later).
final class Recorder: SessionDataDelegate, @unchecked Sendable {
    struct State {
        var calls: [String] = []
        var responses: [Response] = []
        var body = Data()
        var bodyPerPart: [Data] = []
        var completions = 0
        var error: TransferError?
        var heldHandlers: [@Sendable (ResponseDisposition) -> Void] = []
        var offQueueCalls = 0
        var invalidated = 0
    }

    let state = Locked(State())
    let queue: DispatchQueue
    private let key = DispatchSpecificKey<Int>()
    private let plan: @Sendable (Response) -> ResponseDisposition?
    private let onData: (@Sendable (DataTask, Data) -> Void)?

    init(queue: DispatchQueue = DispatchQueue(label: "test.delegate"),
         plan: @escaping @Sendable (Response) -> ResponseDisposition? = { _ in .allow },
         onData: (@Sendable (DataTask, Data) -> Void)? = nil) {
        self.queue = queue
        self.plan = plan
        self.onData = onData
        queue.setSpecific(key: key, value: 1)
    }

    private func note(_ call: String, _ update: (inout State) -> Void = { _ in }) {
        let onQueue = DispatchQueue.getSpecific(key: key) == 1
        state.withLock { s in
            s.calls.append(call)
            if !onQueue { s.offQueueCalls += 1 }
            update(&s)
        }
    }

    func urlSession(_ session: Session, dataTask: DataTask, didReceive response: Response,
                    completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) {
        note("response") { s in
            s.responses.append(response)
            s.bodyPerPart.append(Data())
        }
        if let answer = plan(response) {
            completionHandler(answer)
        } else {
            state.withLock { $0.heldHandlers.append(completionHandler) }
        }
    }

    func urlSession(_ session: Session, dataTask: DataTask, didReceive data: Data) {
        note("data") { s in
            s.body.append(data)
            if !s.bodyPerPart.isEmpty { s.bodyPerPart[s.bodyPerPart.count - 1].append(data) }
        }
        onData?(dataTask, data)
    }

    func urlSession(_ session: Session, task: SessionTask, didCompleteWithError error: TransferError?) {
        note("complete") { s in
            s.completions += 1
            s.error = error
        }
    }

    func urlSession(_ session: Session, didBecomeInvalidWithError error: TransferError?) {
        note("invalid") { $0.invalidated += 1 }
    }

    var snapshot: State { state.withLock { $0 } }
    var isComplete: Bool { state.withLock { $0.completions > 0 } }

    /// Waits for the one completion; records a test issue (and returns false) at the deadline.
    func waitForCompletion(_ seconds: Double = 15, sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
        let done = await eventually(seconds) { isComplete }
        if !done { Issue.record("the task did not complete within \(seconds) s", sourceLocation: sourceLocation) }
        return done
    }
}

/// Collects the event stream the session's monitor sees.
final class EventLog: Sendable {
    private let stored = Locked<[TaskEventRecord]>([])
    var monitor: TaskEventMonitor { { record in self.stored.withLock { $0.append(record) } } }
    var records: [TaskEventRecord] { stored.withLock { $0 } }
    var events: [TaskEvent] { records.map(\.event) }
    var names: [String] { events.map(\.name) }
}

func patternBytes(offset: Int64 = 0, count: Int) -> Data {
    Data(ScenarioPattern.bytes(offset: offset, count: count))
}
