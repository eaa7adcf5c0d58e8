// The split download's state machine, one transition at a time, without sockets.
@testable import SluiceEngine
import Testing

@Suite struct SegmentPlanTests {
    func fresh(_ total: Int64 = 800, connections: Int = 4, minimum: Int64 = 100) -> SegmentPlan {
        SegmentPlan(total: total, connections: connections, minimumPiece: minimum, pending: [(0, total)])
    }

    @Test func aFreshPlanStartsOneEqualRangePerConnection() {
        var plan = fresh()
        #expect(plan.start() == [.fetch(id: 0, first: 0, last: 199), .fetch(id: 1, first: 200, last: 399),
                                 .fetch(id: 2, first: 400, last: 599), .fetch(id: 3, first: 600, last: 799)])
        #expect(plan.activeCount == 4)
    }

    @Test func noRangeIsSmallerThanTheMinimum() {
        var plan = fresh(250, connections: 8, minimum: 100)
        #expect(plan.start() == [.fetch(id: 0, first: 0, last: 124), .fetch(id: 1, first: 125, last: 249)])
    }

    @Test func bytesMoveTheSegmentOnWithoutActions() {
        var plan = fresh()
        _ = plan.start()
        let (keep, actions) = plan.received(1, count: 50)
        #expect(keep == 50)
        #expect(actions.isEmpty)
        #expect(plan.segment(1)?.next == 250)
        #expect(plan.bytesDone == 50)
    }

    @Test func aFinishedSegmentTakesHalfOfTheLargestRest() {
        var plan = fresh()
        _ = plan.start()
        _ = plan.received(1, count: 20)   // 180 left
        _ = plan.received(2, count: 150)  // 50 left
        // segment 3 has not moved: 200 left, the slowest
        let (keep, actions) = plan.received(0, count: 200)
        #expect(keep == 200)
        #expect(actions == [.fetch(id: 4, first: 700, last: 799)])
        #expect(plan.segment(3)?.end == 700)
        #expect(plan.segment(0)?.state == .done)
    }

    @Test func theSegmentStolenFromStopsAtItsNewEnd() {
        var plan = fresh()
        _ = plan.start()
        _ = plan.received(1, count: 10)
        _ = plan.received(2, count: 10)
        _ = plan.received(0, count: 200)  // steals 700..<800 from segment 3, which has the most left
        let (keep, actions) = plan.received(3, count: 150)
        #expect(keep == 100, "bytes past the new end are the thief's")
        #expect(actions.first == .stop(id: 3))
    }

    @Test func nothingIsStolenBelowTwiceTheMinimum() {
        var plan = fresh(400, connections: 2, minimum: 100)
        _ = plan.start()
        _ = plan.received(1, count: 50)  // 150 left: less than 2 x 100
        #expect(plan.received(0, count: 200).actions.isEmpty)
    }

    @Test func aRequestEndedEarlyIsAskedAgainForItsRest() {
        var plan = fresh()
        _ = plan.start()
        _ = plan.received(2, count: 30)
        #expect(plan.ended(2, failure: "connection lost") == [.fetch(id: 2, first: 430, last: 599)])
        #expect(plan.retries == 1)
    }

    @Test func tooManyFailuresFailTheDownload() {
        var plan = SegmentPlan(total: 100, connections: 1, minimumPiece: 100, pending: [(0, 100)], retryLimit: 1)
        _ = plan.start()
        #expect(plan.ended(0, failure: "lost") == [.fetch(id: 0, first: 0, last: 99)])
        #expect(plan.ended(0, failure: "lost again") == [.fail("lost again")])
    }

    @Test func theLastSegmentCompletesTheDownload() {
        var plan = fresh(200, connections: 2)
        _ = plan.start()
        _ = plan.received(0, count: 100)
        #expect(plan.received(1, count: 100).actions == [.complete])
        #expect(plan.isComplete)
    }

    @Test func aWholeBodyStopsTheOthersAndBecomesTheOnlySegment() {
        var plan = fresh()
        _ = plan.start()
        _ = plan.received(0, count: 10)
        let (restarted, actions) = plan.wholeBodyArrived(2, newTotal: 900)
        #expect(actions == [.stop(id: 0), .stop(id: 1), .stop(id: 3)])
        #expect(restarted.segments.count == 1)
        #expect(restarted.segment(2)?.start == 0)
        #expect(restarted.segment(2)?.end == 900)
        #expect(restarted.bytesDone == 0)
    }

    @Test func resumeDataKeepsTheMissingRanges() {
        var plan = fresh()
        _ = plan.start()
        _ = plan.received(1, count: 50)
        _ = plan.received(0, count: 200)  // steals 500..<600 from segment 2 (the first with most left)
        #expect(plan.pendingRanges.map { [$0.0, $0.1] } == [[250, 400], [400, 500], [500, 600], [600, 800]])
        #expect(plan.contiguousPrefix == 250)
        #expect(plan.bytesDone == 250)
    }

    @Test func aResumedPlanFetchesOnlyWhatIsMissing() {
        var plan = SegmentPlan(total: 800, connections: 2, minimumPiece: 100, pending: [(250, 400), (600, 700)])
        #expect(plan.start() == [.fetch(id: 0, first: 250, last: 399), .fetch(id: 1, first: 600, last: 699)])
    }

    @Test func eventsForUnknownOrFinishedSegmentsAreIgnored() {
        var plan = fresh(200, connections: 2)
        _ = plan.start()
        _ = plan.received(0, count: 100)
        #expect(plan.received(0, count: 10).keep == 0)
        #expect(plan.received(9, count: 10).keep == 0)
        #expect(plan.ended(0, failure: nil).isEmpty)
    }
}
