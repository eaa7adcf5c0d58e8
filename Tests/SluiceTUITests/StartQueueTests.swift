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
}
