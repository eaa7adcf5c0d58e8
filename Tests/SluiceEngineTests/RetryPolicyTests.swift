// RetryPolicy, one decision at a time: which failures are retried, the backoff and its jitter, Retry-After,
// the count and time limits, and methods that are never sent twice.
import Foundation
import Testing
@testable import SluiceEngine

@Suite struct RetryPolicyTests {
    let lost = RetryPolicy.Failure.transfer(TransferError(.networkConnectionLost, "connection reset"))
    let now = 1_800_000_000.0

    func decide(_ policy: RetryPolicy, _ failure: RetryPolicy.Failure, method: String = "GET", made: Int = 0,
                elapsed: Double = 0, random: Double = 0) -> RetryPolicy.Decision {
        policy.decide(after: failure, method: method, retriesMade: made, elapsed: elapsed, now: now, random: { random })
    }

    @Test func aLostConnectionIsRetriedAfterTheInitialDelay() {
        #expect(decide(RetryPolicy(maximumRetries: 3), lost) == .retry(after: 1, attempt: 1, of: 3, reason: "connection reset"))
    }

    @Test func aTimeoutIsRetried() {
        let timedOut = RetryPolicy.Failure.transfer(TransferError(.timedOut, "no data for 60 s"))
        #expect(decide(RetryPolicy(maximumRetries: 1), timedOut) == .retry(after: 1, attempt: 1, of: 1, reason: "no data for 60 s"))
    }

    @Test(arguments: [408, 429, 500, 502, 503, 504])
    func aBusyOrFailingServerIsRetried(status: Int) {
        let decision = decide(RetryPolicy(maximumRetries: 2), .status(status, retryAfter: nil))
        #expect(decision == .retry(after: 1, attempt: 1, of: 2, reason: "the server answered \(status)"))
    }

    @Test(arguments: [400, 401, 403, 404, 410, 501])
    func aStatusThatWouldRepeatIsNotRetried(status: Int) {
        #expect(decide(RetryPolicy(maximumRetries: 5), .status(status, retryAfter: nil))
                == .giveUp(.notRetried, reason: "the server answered \(status)"))
    }

    @Test func aRefusedConnectionIsNotRetriedAsInCurl() {
        let refused = RetryPolicy.Failure.transfer(TransferError(.cannotConnectToHost, "Connection refused"))
        #expect(decide(RetryPolicy(maximumRetries: 5), refused) == .giveUp(.notRetried, reason: "Connection refused"))
    }

    @Test func theWaitDoublesWithEachRetry() {
        let policy = RetryPolicy(maximumRetries: 5)
        let delays = (0..<4).map { made -> Double? in
            if case .retry(let delay, _, _, _) = decide(policy, lost, made: made) { return delay }
            return nil
        }
        #expect(delays == [1, 2, 4, 8])
    }

    @Test func jitterTakesUpToHalfOfTheWait() {
        let policy = RetryPolicy(maximumRetries: 5)
        #expect(decide(policy, lost, made: 2, random: 0.5) == .retry(after: 3, attempt: 3, of: 5, reason: "connection reset"))
        guard case .retry(let delay, _, _, _) = decide(policy, lost, made: 2, random: 0.999_999) else {
            Issue.record("not retried")
            return
        }
        #expect(delay > 2 && delay < 2.001)
    }

    @Test func theWaitStopsGrowingAtTheMaximumDelay() {
        var policy = RetryPolicy(maximumRetries: 20)
        policy.maximumDelay = 30
        #expect(decide(policy, lost, made: 10) == .retry(after: 30, attempt: 11, of: 20, reason: "connection reset"))
    }

    @Test func retryAfterInSecondsReplacesTheBackoff() {
        let decision = decide(RetryPolicy(maximumRetries: 3), .status(503, retryAfter: "7"), made: 1, random: 0.9)
        #expect(decision == .retry(after: 7, attempt: 2, of: 3, reason: "the server answered 503"))
    }

    /// Found by a tester: "retrying in 27 h 47 min (1/5)" for a Retry-After of 100000, by a command nobody watches.
    @Test func aRetryAfterLongerThanAnHourGivesUpUnlessARetryTimeAllowsIt() {
        #expect(decide(RetryPolicy(maximumRetries: 3), .status(503, retryAfter: "3600"))
                == .retry(after: 3600, attempt: 1, of: 3, reason: "the server answered 503"))
        let refused = decide(RetryPolicy(maximumRetries: 3), .status(503, retryAfter: "100000"))
        #expect(refused == .giveUp(.waitTooLong(asked: 100_000, limit: 3600), reason: "the server answered 503"))
        var patient = RetryPolicy(maximumRetries: 3)
        patient.maximumTime = 200_000
        #expect(decide(patient, .status(503, retryAfter: "100000"))
                == .retry(after: 100_000, attempt: 1, of: 3, reason: "the server answered 503"))
        #expect(RetryPolicy.GiveUp.waitTooLong(asked: 100_000, limit: 3600).description
                == "gave up: the server asks to wait 100000 s, more than 3600 s (--retry-max-time allows longer)")
    }

    @Test func retryAfterAsAnHTTPDateWaitsUntilThen() throws {
        let date = "Fri, 15 Jan 2027 08:00:12 GMT"
        let then = try #require(HTTPDate.parse(date))
        let decision = RetryPolicy(maximumRetries: 3).decide(after: .status(429, retryAfter: date), method: "GET",
                                                            retriesMade: 0, elapsed: 0, now: then - 12)
        #expect(decision == .retry(after: 12, attempt: 1, of: 3, reason: "the server answered 429"))
    }

    @Test func aRetryAfterDateInThePastWaitsNothing() {
        #expect(RetryPolicy.retryAfter("Sun, 06 Nov 1994 08:49:37 GMT", now: now) == 0)
    }

    @Test func anUnreadableRetryAfterFallsBackToTheBackoff() {
        #expect(RetryPolicy.retryAfter("soon", now: now) == nil)
        #expect(decide(RetryPolicy(maximumRetries: 3), .status(503, retryAfter: "soon"))
                == .retry(after: 1, attempt: 1, of: 3, reason: "the server answered 503"))
    }

    @Test func afterTheLastRetryItGivesUp() {
        #expect(decide(RetryPolicy(maximumRetries: 2), lost, made: 2)
                == .giveUp(.exhausted(retries: 2), reason: "connection reset"))
    }

    @Test func noRetriesMeansNone() {
        #expect(decide(RetryPolicy(maximumRetries: 0), lost) == .giveUp(.exhausted(retries: 0), reason: "connection reset"))
    }

    @Test(arguments: ["POST", "PATCH", "post", "LOCK"])
    func aNonIdempotentMethodIsNeverRetried(method: String) {
        #expect(decide(RetryPolicy(maximumRetries: 5), .status(503, retryAfter: "1"), method: method)
                == .giveUp(.nonIdempotent(method: method.uppercased()), reason: "the server answered 503"))
    }

    @Test(arguments: ["GET", "HEAD", "PUT", "DELETE", "OPTIONS"])
    func idempotentMethodsAreRetried(method: String) {
        #expect(decide(RetryPolicy(maximumRetries: 1), lost, method: method)
                == .retry(after: 1, attempt: 1, of: 1, reason: "connection reset"))
    }

    @Test func aPostIsRetriedWhenTheCallerSaysItIsSafe() {
        var policy = RetryPolicy(maximumRetries: 1)
        policy.retriesNonIdempotentMethods = true
        #expect(decide(policy, lost, method: "POST") == .retry(after: 1, attempt: 1, of: 1, reason: "connection reset"))
    }

    @Test func noRetryStartsAfterTheMaximumTime() {
        var policy = RetryPolicy(maximumRetries: 5)
        policy.maximumTime = 10
        #expect(decide(policy, lost, made: 2, elapsed: 5) == .retry(after: 4, attempt: 3, of: 5, reason: "connection reset"))
        #expect(decide(policy, lost, made: 2, elapsed: 7) == .giveUp(.outOfTime(seconds: 10), reason: "connection reset"))
        #expect(decide(policy, .status(503, retryAfter: "30"), elapsed: 0)
                == .giveUp(.outOfTime(seconds: 10), reason: "the server answered 503"))
    }

    @Test func theReasonsReadAsSentences() {
        #expect(RetryPolicy.GiveUp.exhausted(retries: 1).description == "gave up after 1 retry")
        #expect(RetryPolicy.GiveUp.outOfTime(seconds: 2.5).description == "gave up: no retry starts after 2.5 s")
    }
}
