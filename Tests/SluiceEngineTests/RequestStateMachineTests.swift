// The request state machine one transition at a time, without sockets: each event from each state, and the
// impossible ones.
import Foundation
@testable import SluiceEngine
import Testing

private typealias Machine = RequestStateMachine
private let next = Request(url: URL(string: "http://127.0.0.1/next")!)
private let lost = TransferError(.networkConnectionLost, "lost")
private let refused = TransferError(.badServerResponse, "refused")

/// A machine brought to a state through its own events, so every test starts from a reachable state.
private func machine(_ steps: (inout Machine) -> Void = { _ in }, local: Bool = false) -> Machine {
    var m = Machine(isLocal: local)
    steps(&m)
    return m
}

private func awaiting(_ m: inout Machine) { _ = m.bodyArrived(fits: true, isMultipart: false) }
private func streaming(_ m: inout Machine) { awaiting(&m); _ = m.answerAllowed() }
private func multipartStreaming(_ m: inout Machine) { _ = m.bodyArrived(fits: true, isMultipart: true) }
private func asking(_ m: inout Machine) { _ = m.redirectHeadArrived() }

private func isInternalError(_ action: Machine.Action) -> Bool {
    if case .internalError = action { true } else { false }
}

@Suite struct RequestStateMachineHeadTests {
    @Test func theFirstBodyByteDeliversTheResponse() {
        var m = machine()
        #expect(m.bodyArrived(fits: true, isMultipart: false) == .deliverResponse)
        #expect(m.state == .awaitingAnswer(ended: nil))
        #expect(m.bodyArrived(fits: true, isMultipart: false) == .gather)  // offered again: kept, undelivered
        #expect(!m.mayFlush)
    }

    @Test func aFullBufferPausesWhileTheAnswerIsAwaited() {
        var m = machine(awaiting)
        #expect(m.bodyArrived(fits: false, isMultipart: false) == .pauseReceiving)
    }

    @Test func aMultipartHeadStreamsPartsWithoutAResponseOfItsOwn() {
        var m = machine()
        #expect(m.bodyArrived(fits: true, isMultipart: true) == .feedParts)
        #expect(m.state == .streaming)
        #expect(m.multipart)
    }

    @Test func aSuspendedHeadPausesTheBody() {
        var m = machine()
        #expect(m.suspend() == .pauseAll)
        #expect(m.bodyArrived(fits: true, isMultipart: false) == .pauseReceiving)
        #expect(m.state == .head)
    }

    @Test func anEmptyBodyStillDeliversTheResponseAtTheEnd() {
        var m = machine()
        #expect(m.ended(nil, headComplete: true) == .deliverResponse)
        #expect(m.state == .awaitingAnswer(ended: .init(error: nil)))
        #expect(m.answerAllowed() == .finish(nil))
    }

    @Test func aFailureBeforeTheHeadFinishesWithoutAResponse() {
        var m = machine()
        #expect(m.ended(lost, headComplete: false) == .finish(lost))
    }

    @Test func aFailureBeforeTheHeadOfASuspendedTaskWaitsForTheResume() {
        var m = machine { _ = $0.suspend() }
        #expect(m.ended(lost, headComplete: false) == .none)
        #expect(m.resume() == .finish(lost))
    }

    @Test func trailersAreNotReadAsAHead() {
        var m = machine(streaming)
        #expect(!m.readsHead)
        m = machine()
        #expect(m.readsHead)
    }
}

@Suite struct RequestStateMachineAnswerTests {
    @Test func allowingStreamsAndUnpauses() {
        var m = machine(awaiting)
        #expect(m.answerAllowed() == .unpause)
        #expect(m.state == .streaming)
        #expect(m.mayFlush)
        #expect(m.bodyArrived(fits: false, isMultipart: false) == .gather)
    }

    @Test func allowingAfterTheEndFinishes() {
        var m = machine(awaiting)
        #expect(m.ended(nil, headComplete: true) == .none)
        #expect(m.answerAllowed() == .finish(nil))
    }

    @Test func allowingASuspendedTaskKeepsItPaused() {
        var m = machine(awaiting)
        #expect(m.suspend() == .pauseAll)
        #expect(m.answerAllowed() == .none)
        #expect(m.resume() == .unpause)
    }

    @Test func allowingAPartPumpsTheNextParts() {
        var m = machine(multipartStreaming)
        #expect(m.partStarted(isDownload: false) == .deliverResponse)
        #expect(!m.mayPumpParts)
        #expect(m.answerAllowed() == .pumpParts)
        #expect(m.mayPumpParts)
    }

    @Test func localBodiesHaveNothingToUnpause() {
        var m = machine(local: true)
        #expect(m.localStarted() == .deliverResponse)
        #expect(m.answerAllowed() == .none)
        #expect(m.localBodyEnded() == .finish(nil))
    }

    @Test func aConversionAnswersTheAwaitedResponse() {
        var m = machine(awaiting)
        m.holdForBackpressure()
        #expect(m.adoptedByDownload() == .unpause)
        #expect(!m.backpressure)
        #expect(m.state == .streaming)
    }
}

@Suite struct RequestStateMachineRedirectTests {
    @Test func aRedirectHeadAsksAndGathersItsBody() {
        var m = machine()
        #expect(m.redirectHeadArrived() == .askRedirect)
        #expect(m.bodyArrived(fits: true, isMultipart: false) == .gather)
        #expect(!m.mayFlush)
        #expect(!m.timeoutApplies)  // waiting for the delegate, not the network
    }

    @Test func followingAfterTheEndFollowsAtOnce() {
        var m = machine(asking)
        #expect(m.ended(nil, headComplete: true) == .none)
        #expect(m.redirectAnswered(next, shortBody: true) == .follow(next))
    }

    @Test func followingAShortBodyStillArrivingWaitsForItsEnd() {
        var m = machine(asking)
        #expect(m.redirectAnswered(next, shortBody: true) == .none)
        #expect(m.timeoutApplies)  // now the network is what we wait for
        #expect(m.bodyArrived(fits: true, isMultipart: false) == .gather)
        #expect(m.ended(nil, headComplete: true) == .follow(next))
    }

    @Test func followingALongBodyCutsItOff() {
        var m = machine(asking)
        #expect(m.redirectAnswered(next, shortBody: false) == .follow(next))
    }

    @Test func refusingMakesTheRedirectTheResponse() {
        var m = machine(asking)
        #expect(m.ended(nil, headComplete: true) == .none)
        #expect(m.redirectAnswered(nil, shortBody: true) == .deliverResponse)
        #expect(m.answerAllowed() == .finish(nil))
    }

    @Test func theLimitFailsTheHead() {
        var m = machine()
        let tooMany = TransferError(.tooManyRedirects, "more than 2 redirects")
        #expect(m.fail(tooMany) == .refuse)
        #expect(m.bodyArrived(fits: true, isMultipart: false) == .refuse)
        #expect(m.ended(nil, headComplete: true) == .finish(tooMany))  // no response reaches the delegate
    }
}

@Suite struct RequestStateMachineChallengeTests {
    @Test func aChallengeIsAskedAndItsBodyKept() {
        var m = machine()
        #expect(m.challengeHeadArrived() == .askChallenge)
        #expect(m.bodyArrived(fits: true, isMultipart: false) == .gather)
        #expect(!m.mayFlush)
    }

    @Test func aCredentialSendsTheRequestAgainAfterAShortBody() {
        var m = machine { _ = $0.challengeHeadArrived() }
        #expect(m.challengeAnswered(resend: true, shortBody: true) == .none)
        #expect(m.ended(nil, headComplete: true) == .resend)
    }

    @Test func noCredentialMakesThe401TheResponse() {
        var m = machine { _ = $0.challengeHeadArrived() }
        _ = m.ended(nil, headComplete: true)
        #expect(m.challengeAnswered(resend: false, shortBody: true) == .deliverResponse)
        #expect(m.answerAllowed() == .finish(nil))
    }

    @Test func anUntrustedServerIsAskedAndRefusalKeepsTheError() {
        let untrusted = TransferError(.serverCertificateUntrusted, "self-signed certificate")
        var m = machine()
        #expect(m.untrustedServer(untrusted) == .askChallenge)
        #expect(m.challengeAnswered(resend: false, shortBody: false) == .finish(untrusted))  // no 401 to fall back on
    }

    @Test func anUntrustedServerTrustedIsAskedAgain() {
        var m = machine()
        _ = m.untrustedServer(TransferError(.serverCertificateUntrusted, "expired"))
        #expect(m.challengeAnswered(resend: true, shortBody: false) == .resend)
    }
}

@Suite struct RequestStateMachineHoldTests {
    @Test func suspendingPausesEverything() {
        var m = machine(streaming)
        #expect(m.suspend() == .pauseAll)
        #expect(m.bodyArrived(fits: true, isMultipart: false) == .pauseReceiving)
        #expect(!m.timeoutApplies)
    }

    @Test func anEndWhileSuspendedWaitsForTheResume() {
        var m = machine(streaming)
        _ = m.suspend()
        #expect(m.ended(nil, headComplete: true) == .none)
        #expect(m.state == .ended(nil))
        #expect(m.suspend() == .none)  // nothing left to pause
        #expect(m.resume() == .finish(nil))
    }

    @Test func backpressurePausesUntilDrained() {
        var m = machine(streaming)
        m.holdForBackpressure()
        #expect(m.bodyArrived(fits: true, isMultipart: false) == .pauseReceiving)
        #expect(m.drained() == .unpause)
    }

    @Test func aRateHoldPausesUntilTheLimitAllowsAgainAndStopsTheInactivityClock() {
        var m = machine(streaming)
        #expect(m.holdForRate() == .none)
        #expect(m.bodyArrived(fits: true, isMultipart: false) == .pauseReceiving)
        #expect(!m.timeoutApplies)  // the silence is the limit's
        #expect(m.rateCaughtUp() == .unpause)
        #expect(m.timeoutApplies)
    }

    @Test func aRateHoldWhileTheAnswerIsAwaitedPausesInsteadOfGathering() {
        var m = machine(awaiting)
        _ = m.holdForRate()
        #expect(m.bodyArrived(fits: true, isMultipart: false) == .pauseReceiving)
        #expect(m.rateCaughtUp() == .none)  // the answer is still owed
        #expect(m.bodyArrived(fits: true, isMultipart: false) == .gather)
    }

    @Test func aSuspendedTaskCaughtUpWithItsLimitStaysPaused() {
        var m = machine(streaming)
        _ = m.holdForRate()
        _ = m.suspend()
        #expect(m.rateCaughtUp() == .none)
        #expect(m.resume() == .unpause)
    }

    @Test func aReleaseOfWhatIsNotHeldChangesNothing() {
        var m = machine(streaming)
        _ = m.suspend()
        #expect(m.drained() == .none)  // still suspended
        #expect(m.suspended)
        #expect(m.resume() == .unpause)
        #expect(m.resume() == .unpause)  // a late duplicate: the transfer simply goes on
    }

    @Test func aReleaseOfOneHoldKeepsTheOther() {
        var m = machine(awaiting)
        _ = m.suspend()
        #expect(m.resume() == .none)  // the answer is still owed
        #expect(m.isHeld)
    }
}

@Suite struct RequestStateMachineEndTests {
    @Test func theEndOfAStreamFinishes() {
        var m = machine(streaming)
        #expect(m.ended(lost, headComplete: true) == .finish(lost))
        #expect(m.state == .finished)
    }

    @Test func theEndOfAMultipartStreamPumpsTheRestFirst() {
        var m = machine(multipartStreaming)
        #expect(m.ended(nil, headComplete: true) == .pumpParts)
        #expect(m.mayPumpParts)
        #expect(m.flowResumed() == .finish(nil))
    }

    @Test func aPartAfterTheEndIsStillAsked() {
        var m = machine(multipartStreaming)
        _ = m.ended(nil, headComplete: true)
        #expect(m.partStarted(isDownload: false) == .deliverResponse)
        #expect(m.flowResumed() == .none)
        #expect(m.answerAllowed() == .pumpParts)
        #expect(m.flowResumed() == .finish(nil))
    }

    @Test func theConvertedPartEndsTheStreamSuccessfully() {
        var m = machine(multipartStreaming)
        #expect(m.partStarted(isDownload: true) == .refuse)
        #expect(m.refusesBody)
        #expect(m.ended(nil, headComplete: true) == .finish(nil))
    }

    @Test func aFailureOutsideACallbackEndsOnTheNextFlow() {
        var m = machine(awaiting)
        #expect(m.fail(refused) == .refuse)
        #expect(m.flowResumed() == .finish(refused))
    }

    @Test func theFirstFailureStands() {
        var m = machine(streaming)
        _ = m.fail(refused)
        #expect(m.fail(lost) == .refuse)
        #expect(m.ended(nil, headComplete: true) == .finish(refused))
    }

    @Test func aFailureWhileSuspendedWaitsForTheResume() {
        var m = machine(streaming)
        _ = m.suspend()
        _ = m.fail(refused)
        #expect(m.flowResumed() == .none)
        #expect(m.resume() == .finish(refused))
    }
}

@Suite struct RequestStateMachineImpossibleTests {
    @Test func bytesAfterTheEnd() {
        var m = machine(streaming)
        _ = m.suspend()
        _ = m.ended(nil, headComplete: true)
        guard case .internalError(let message) = m.bodyArrived(fits: true, isMultipart: false) else {
            Issue.record("bytes after the end were taken")
            return
        }
        #expect(message.contains("body bytes"))  // names the event
        #expect(message.contains("ended(nil)"))  // and the state
        // The transfer still ends, with the internal error, once nothing holds it.
        #expect(m.resume() == .finish(TransferError(.unknown, message)))
    }

    @Test func aRateHoldAfterTheEnd() {
        var m = machine(streaming)
        _ = m.suspend()
        _ = m.ended(nil, headComplete: true)
        #expect(isInternalError(m.holdForRate()))
    }

    @Test func aSecondEnd() {
        var m = machine(awaiting)
        _ = m.ended(nil, headComplete: true)
        #expect(isInternalError(m.ended(nil, headComplete: true)))
    }

    @Test func aRedirectAnswerNobodyAskedFor() {
        var m = machine(streaming)
        #expect(isInternalError(m.redirectAnswered(next, shortBody: true)))
        #expect(m.refusesBody)
    }

    @Test func anAnswerToNoResponse() {
        var m = machine(streaming)
        #expect(isInternalError(m.answerAllowed()))
    }

    @Test func aRedirectHeadAfterTheResponse() {
        var m = machine(awaiting)
        #expect(isInternalError(m.redirectHeadArrived()))
    }

    @Test func aPartWithoutAMultipartStream() {
        var m = machine(streaming)
        #expect(isInternalError(m.partStarted(isDownload: false)))
    }

    @Test func anyEventAfterTheDriverFinished() {
        for event in [{ (m: inout Machine) in m.suspend() }, { $0.resume() }, { $0.drained() },
                      { $0.fail(lost) }, { $0.adoptedByDownload() }, { $0.flowResumed() }] {
            var m = machine(streaming)
            m.finished()
            #expect(isInternalError(event(&m)))
        }
    }

    @Test func aLocalEventOnANetworkRequest() {
        var m = machine()
        #expect(isInternalError(m.localStarted()))
    }
}
