// Mirrors in the split download's state machine, one transition at a time; the check of a mirror's answer; its request.
import Foundation
@testable import SluiceEngine
import Testing

@Suite struct MirrorPlanTests {
    func mirrored(_ total: Int64 = 800, connections: Int = 4, sources: Int = 2) -> SegmentPlan {
        SegmentPlan(total: total, connections: connections, minimumPiece: 100, pending: [(0, total)], sources: sources)
    }

    @Test func aFreshStartGoesRoundRobinOverTheSources() {
        var plan = mirrored(connections: 4, sources: 2)
        #expect(plan.start() == [.fetch(id: 0, first: 0, last: 199, source: 0), .fetch(id: 1, first: 200, last: 399, source: 1),
                                 .fetch(id: 2, first: 400, last: 599, source: 0), .fetch(id: 3, first: 600, last: 799, source: 1)])
    }

    @Test func aStolenHalfGoesToTheLeastLoadedSource() {
        var plan = mirrored(900, connections: 3, sources: 3)
        _ = plan.start()  // 0..<300 on 0, 300..<600 on 1, 600..<900 on 2
        _ = plan.received(0, count: 100)
        // source 1 finishes: it has no request left, so the thief's request is its own again, not the busy ones'
        #expect(plan.received(1, count: 300).actions == [.fetch(id: 3, first: 750, last: 899, source: 1)])
    }

    @Test func aFailingMirrorIsDroppedAndItsRangesGoToTheOthers() {
        var plan = mirrored(connections: 4, sources: 2)
        _ = plan.start()
        _ = plan.received(1, count: 50)
        let actions = plan.sourceFailed(3, reason: "answered 503 to a range request")
        #expect(actions == [.drop(source: 1, reason: "answered 503 to a range request"), .stop(id: 1), .stop(id: 3),
                            .fetch(id: 1, first: 250, last: 399, source: 0), .fetch(id: 3, first: 600, last: 799, source: 0)])
        #expect(plan.droppedSources == [1])
        #expect(plan.retries == 0, "a dropped mirror's ranges did nothing wrong")
        #expect(plan.segment(1)?.next == 250, "the bytes it had written stay")
    }

    @Test func aDroppedMirrorGetsNoMoreRequests() {
        var plan = mirrored(connections: 2, sources: 2)
        _ = plan.start()
        _ = plan.sourceFailed(1, reason: "refused")
        _ = plan.received(0, count: 400)  // source 0 finishes its range and steals half of the other
        #expect(plan.segments.filter { $0.state == .active }.allSatisfy { $0.source == 0 })
    }

    @Test func theDownloadsOwnURLIsNeverDroppedItsFailureIsARetry() {
        var plan = mirrored(connections: 2, sources: 2)
        _ = plan.start()
        #expect(plan.sourceFailed(0, reason: "answered 503") == [.fetch(id: 0, first: 0, last: 399, source: 1)])
        #expect(plan.droppedSources.isEmpty)
        #expect(plan.retries == 1)
    }

    @Test func aRangeThatFailedIsAskedAgainFromAnotherSource() {
        var plan = mirrored(connections: 2, sources: 2)
        _ = plan.start()
        _ = plan.received(1, count: 100)
        #expect(plan.ended(1, failure: "connection lost") == [.fetch(id: 1, first: 500, last: 799, source: 0)])
    }

    @Test func withOneSourceLeftAFailedRangeGoesBackToIt() {
        var plan = mirrored(connections: 2, sources: 2)
        _ = plan.start()
        _ = plan.sourceFailed(1, reason: "refused")
        #expect(plan.ended(0, failure: "lost") == [.fetch(id: 0, first: 0, last: 399, source: 0)])
    }

    @Test func aSegmentMovedOffADroppedMirrorBelongsToItsNewSource() {
        var plan = mirrored(connections: 4, sources: 2)
        _ = plan.start()
        _ = plan.sourceFailed(1, reason: "refused")
        // segment 3 was on the dropped mirror too: it now runs on source 0, and its old request's end is not a drop
        #expect(plan.segment(3)?.source == 0)
        #expect(!plan.sourceFailed(3, reason: "refused").contains(.drop(source: 1, reason: "refused")))
    }
}

@Suite struct MirrorRequestTests {
    @Test func aMirrorOnAnotherOriginGetsNoCredentialsOrCookiesTheCallerSet() throws {
        var base = Request(url: try #require(URL(string: "http://127.0.0.1:8080/f")))
        base.headers.set("Authorization", "Bearer secret")
        base.headers.set("Cookie", "session=1")
        base.headers.set("User-Agent", "sluice-test")
        let elsewhere = SegmentedDownload.request(base, for: try #require(URL(string: "http://localhost:8080/f")))
        #expect(elsewhere.url.host == "localhost")
        #expect(elsewhere.headers["Authorization"] == nil && elsewhere.headers["Cookie"] == nil)
        #expect(elsewhere.headers["User-Agent"] == "sluice-test")
        let samePlace = SegmentedDownload.request(base, for: try #require(URL(string: "http://127.0.0.1:8080/g")))
        #expect(samePlace.headers["Authorization"] == "Bearer secret" && samePlace.headers["Cookie"] == "session=1")
    }
}

@Suite struct MirrorCheckTests {
    let url = URL(string: "http://127.0.0.1/f")!
    let check = MirrorCheck(total: 1000, validator: .etag("\"v1\""))

    func response(_ status: Int, _ fields: [(String, String)]) -> Response {
        var headers = HTTPHeaders()
        for (name, value) in fields { headers.set(name, value) }
        return Response(url: url, statusCode: status, headers: headers, expectedContentLength: 100)
    }

    @Test func theSameRangeOfTheSameFileIsAccepted() {
        #expect(check.problem(with: response(206, [("Content-Range", "bytes 500-599/1000"), ("ETag", "\"v1\"")]), first: 500) == nil)
    }

    @Test func anErrorStatusIsRefused() {
        #expect(check.problem(with: response(503, []), first: 0) == "answered 503 to a range request")
    }

    @Test func anotherETagIsAnotherFile() {
        let problem = check.problem(with: response(206, [("Content-Range", "bytes 0-99/1000"), ("ETag", "\"v2\"")]), first: 0)
        #expect(problem == "serves another file (ETag \"v2\", not \"v1\")")
    }

    @Test func anotherLengthIsAnotherFile() {
        let problem = check.problem(with: response(206, [("Content-Range", "bytes 0-99/1001"), ("ETag", "\"v1\"")]), first: 0)
        #expect(problem == "serves another file (1001 bytes, not 1000)")
    }

    @Test func aWrongContentRangeIsRefused() {
        let problem = check.problem(with: response(206, [("Content-Range", "bytes 0-99/1000"), ("ETag", "\"v1\"")]), first: 500)
        #expect(problem == "asked for bytes from 500, it sent Content-Range bytes 0-99/1000")
    }

    @Test func aWholeBodyIsNotARange() {
        #expect(check.problem(with: response(200, [("ETag", "\"v1\"")]), first: 0)?.hasPrefix("answered 200") == true)
    }

    @Test func lastModifiedIsComparedWhenThereIsNoStrongETag() {
        let date = "Tue, 01 Jan 2030 00:00:00 GMT"
        let first = response(200, [("ETag", "W/\"weak\""), ("Last-Modified", date)])
        #expect(MirrorCheck.validator(of: first) == .lastModified(date))
        let byDate = MirrorCheck(total: 1000, validator: .lastModified(date))
        #expect(byDate.problem(with: response(206, [("Content-Range", "bytes 0-99/1000"), ("Last-Modified", date)]), first: 0) == nil)
        #expect(byDate.problem(with: response(206, [("Content-Range", "bytes 0-99/1000")]), first: 0)
                == "serves another file (Last-Modified (none), not \(date))")
    }

    @Test func withoutAValidatorNoMirrorIsTrusted() {
        let blind = MirrorCheck(total: 1000, validator: nil)
        #expect(blind.problem(with: response(206, [("Content-Range", "bytes 0-99/1000")]), first: 0) == MirrorCheck.noValidator)
    }
}
