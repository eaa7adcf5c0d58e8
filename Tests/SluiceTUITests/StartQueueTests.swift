// Which tasks run and which wait: at most the limit at once, in the order added, one event at a time.
@testable import SluiceTUI
import Testing

@Suite struct StartQueueTests {
    @Test func tasksPastTheLimitWaitAndStartInOrderAsOthersComplete() {
        var q = StartQueue(limit: 2)
        let started = (1...5).map { q.add($0) }
        #expect(started == [true, true, false, false, false])
        #expect(q.isWaiting(3) && q.waitingCount == 3)
        var next = q.finished(1)
        #expect(next == [3])
        next = q.finished(3)
        #expect(next == [4])
        next = q.finished(2)
        #expect(next == [5])
        next = q.finished(4) + q.finished(5)
        #expect(next.isEmpty)
        #expect(q.running.isEmpty && q.waitingCount == 0)
        let idle = q.add(6)
        #expect(idle, "an idle queue starts a new task at once")
    }

    @Test func aCancelledWaitingTaskIsSkippedAndAKeyStartsOneAtOnce() {
        var q = StartQueue(limit: 1)
        let started = (1...4).map { q.add($0) }
        #expect(started == [true, false, false, false])
        var next = q.finished(2)
        #expect(next.isEmpty, "cancelling a waiting task starts nothing")
        q.startedByUser(3)
        #expect(q.running == [1, 3], "r on a waiting task runs it now, past the limit")
        next = q.finished(1)
        #expect(next.isEmpty, "still one over the limit")
        next = q.finished(3)
        #expect(next == [4])
    }

    @Test func aConversionKeepsItsSlotAndQuitStartsNothing() {
        var q = StartQueue(limit: 1)
        let started = [q.add(1), q.add(2)]
        #expect(started == [true, false])
        q.handedOver(from: 1, to: 7)
        #expect(q.running == [7])
        var next = q.finished(1)
        #expect(next.isEmpty, "the data task's end is not the transfer's")
        q.stopStarting()
        next = q.finished(7)
        #expect(next.isEmpty && !q.isWaiting(2))
    }

    @Test func aFullHostIsPassedOverNotDropped() {
        var q = StartQueue(limit: 3, perHost: 1)
        let started = [q.add(1, host: "a"), q.add(2, host: "a"), q.add(3, host: "b"), q.add(4, host: "b")]
        #expect(started == [true, false, true, false], "b has room while a's second waits for a's first")
        var next = q.finished(1)
        #expect(next == [2])
        #expect(q.queued == [4])
        next = q.finished(3)
        #expect(next == [4])
    }

    @Test func aHostsOwnLimitReplacesPerHostForThatHostOnly() {
        var q = StartQueue(limit: 6, perHost: 1)
        let started = [q.add(1, host: "a", hostLimit: 2), q.add(2, host: "a"), q.add(3, host: "a"),
                       q.add(4, host: "b"), q.add(5, host: "b")]
        #expect(started == [true, true, false, true, false], "a takes two at once, b one")
        #expect(q.finished(2) == [3])
        #expect(q.finished(4) == [5])
    }

    @Test func movingAWaitingTaskChangesWhichStartsNext() {
        var q = StartQueue(limit: 1)
        _ = (1...4).map { q.add($0) }
        var moved = q.move(4, by: 1)
        #expect(moved && q.queued == [2, 4, 3])
        moved = q.move(4, by: 5)
        #expect(moved && q.queued == [4, 2, 3], "past the front stops at the front")
        moved = q.move(4, by: 1)
        #expect(!moved, "already first")
        moved = q.move(1, by: 1)
        #expect(!moved, "a running task has no place in the queue")
        moved = q.move(4, by: -1)
        #expect(moved && q.queued == [2, 4, 3])
        let next = q.finished(1)
        #expect(next == [2])
    }

    @Test func aLiveLimitStartsMoreOrLetsRunningOnesFinish() {
        var q = StartQueue(limit: 1)
        _ = (1...5).map { q.add($0) }
        var next = q.setLimit(3)
        #expect(next == [2, 3])
        next = q.setLimit(1)
        #expect(next.isEmpty && q.running == [1, 2, 3], "a lower limit stops nothing")
        next = q.finished(1) + q.finished(2)
        #expect(next.isEmpty, "still at the limit")
        next = q.finished(3)
        #expect(next == [4])
    }

    @Test func aSuspendedTaskGivesUpItsSlotAndResumingItBeatsTheQueue() {
        var q = StartQueue(limit: 1)
        _ = (1...3).map { q.add($0) }
        var next = q.suspendedByUser(1)
        #expect(next == [2])
        q.startedByUser(1)
        #expect(q.running == [1, 2])
        next = q.finished(2)
        #expect(next.isEmpty)
        next = q.finished(1)
        #expect(next == [3])
    }
}
