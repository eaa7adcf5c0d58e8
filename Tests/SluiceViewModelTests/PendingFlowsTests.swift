// The screen's flows folded when read: the same flows as folding every event at once, a removal after the events
// before it, and the bound on events left waiting.
import SluiceEngine
@testable import SluiceViewModel
import Testing

private func engine(_ id: Int, _ event: TaskEvent, _ time: UInt64) -> ModelEvent {
    .engine(TaskEventRecord(taskIdentifier: id, uptimeNanoseconds: time, event: event))
}

private let drains: [[ModelEvent]] = [
    [.added(id: 1, url: "http://h/a", kind: .download, requestHeaders: [], at: 0),
     .added(id: 2, url: "http://h/b", kind: .data, requestHeaders: [HeaderLine("Accept", "*/*")], at: 1)],
    [engine(1, .stateChanged(.running), 2), engine(1, .didWriteData(bytes: 10, total: 10, expected: 20), 3)],
    [],
    [engine(1, .didWriteData(bytes: 10, total: 20, expected: 20), 4), engine(2, .stateChanged(.running), 5),
     engine(1, .didCompleteWithError(nil), 6)],
]

@Suite struct PendingFlowsTests {
    @Test func readingFoldsWhatEveryDrainBroughtAsFoldingEachEventWould() {
        var eager = FlowLog()
        var pending = PendingFlows()
        for drain in drains {
            for event in drain { eager.apply(event) }
            pending.append(drain)
        }
        #expect(pending.unfolded == 7)
        let folded = pending.current()
        #expect(folded == eager)
        #expect(pending.unfolded == 0)
        #expect(folded[1]?.events.count == 3)  // running, the two writes folded into one, the end
        #expect(pending.current() == eager)  // read again: nothing folded twice
    }

    @Test func aRemovedRowLosesOnlyWhatCameBeforeItsRemoval() {
        var pending = PendingFlows()
        pending.append(drains[0])
        pending.append(drains[1])
        pending.forget(1)
        pending.append([engine(1, .didCompleteWithError(nil), 9)])
        let log = pending.current()
        #expect(log[2]?.url == "http://h/b")
        // As FlowLog has it: a task heard of again after its removal starts a flow of its own, unannounced.
        #expect(log[1]?.url == "" && log[1]?.events.count == 1)
    }

    @Test func eventsPastTheLimitAreFoldedAtOnce() {
        var pending = PendingFlows()
        pending.append(drains[0])
        let burst = (0..<PendingFlows.limit).map { engine(2, .didReceiveData(bytes: 1), UInt64($0 + 10)) }
        pending.append(burst)
        #expect(pending.unfolded == 0)  // 2 + limit waiting: over the bound
        pending.append(drains[3])
        #expect(pending.unfolded == 3)
        #expect(pending.current()[2]?.events.first?.count == PendingFlows.limit)
    }
}
