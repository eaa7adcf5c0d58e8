// One request's life as a value: where its response stands, what holds its bytes, and what the transfer must do
// next. Pure: no libcurl, no delegate, no clock; `Transfer` performs the actions.

/// Each event returns the action the driver performs. An event that cannot happen in the current state is a
/// bug: it returns `.internalError` naming both, which the driver reports loudly (an assertion in debug builds,
/// the task ending with an internal error in release builds), never a silent no-op.
struct RequestStateMachine: Equatable {
    enum State: Equatable {
        /// Sent; the response head has not become the task's response yet.
        case head
        /// A redirect's head came and the delegate is asked; its body is gathered, kept from the task.
        case askingRedirect(ended: Ending?)
        /// The delegate said follow while the redirect's short body was still arriving: follow at its end, so
        /// that libcurl keeps the connection.
        case followingAfterBody(Request)
        /// A 401 or 407 came and the delegate is asked for a credential; the body is gathered, kept from the task.
        case askingChallenge(ended: Ending?)
        /// The delegate gave a credential while the challenge's short body was still arriving: send the request
        /// again at its end.
        case resendingAfterBody
        /// The response (or a multipart part's) is with the delegate; the body gathers, undelivered.
        case awaitingAnswer(ended: Ending?)
        /// Body bytes go to the task.
        case streaming
        /// libcurl is done; the result waits until nothing holds it (a suspended task completes on resume).
        case ended(TransferError?)
        /// Something refused the transfer inside a callback; libcurl is told to stop and the task ends so.
        case failing(TransferError)
        /// A multipart stream whose converted part is complete: the transfer ends there, successfully.
        case partComplete
        /// The driver has finished the transfer; no event may follow.
        case finished
    }

    /// How libcurl ended the request, kept while an answer is still owed.
    struct Ending: Equatable {
        let error: TransferError?
    }

    enum Action: Equatable {
        case none
        /// The write callback returns `CURL_WRITEFUNC_PAUSE`: the bytes are offered again on unpause.
        case pauseReceiving
        /// The callback refuses the bytes (returns 0): libcurl ends the request, then `ended` follows.
        case refuse
        /// Copy the bytes into the gather buffer (flushed to the task only while `mayFlush`).
        case gather
        /// Hand the response to the task now; then offer the bytes again if some are waiting.
        case deliverResponse
        /// Ask the delegate whether to follow the redirect.
        case askRedirect
        /// Ask the delegate to answer the authentication challenge.
        case askChallenge
        /// Send the same request again, with the credential the delegate gave; this one is done.
        case resend
        /// Feed the bytes to the multipart splitter and pump its parts.
        case feedParts
        /// Pump the splitter's parts, then call `flowResumed()`.
        case pumpParts
        /// Stop sending and receiving (`curl_easy_pause(CURLPAUSE_ALL)`).
        case pauseAll
        /// Let libcurl go on (`curl_easy_pause(CURLPAUSE_CONT)`).
        case unpause
        /// Send the next request of the redirect chain; this one is done.
        case follow(Request)
        /// The transfer is over; the task completes with this result.
        case finish(TransferError?)
        /// An impossible event: the message names the state and the event.
        case internalError(String)
    }

    private(set) var state: State = .head
    private(set) var suspended = false
    private(set) var backpressure = false
    /// The transfer's bytes are ahead of its receive limit and libcurl cannot pace it (ReceivePacer).
    private(set) var rateHeld = false
    /// The response is multipart/x-mixed-replace: one response per part, fed through the splitter.
    private(set) var multipart = false
    /// data: and file: bodies are read by the loop itself; there is nothing to unpause.
    let isLocal: Bool
    /// The challenge being asked came before any head (server trust): there is no response to fall back to.
    private var askingWithoutResponse = false

    init(isLocal: Bool = false) {
        self.isLocal = isLocal
    }

    // MARK: What the driver asks

    /// Whether bytes must not reach the task now: suspended, over the buffer limit, ahead of the receive limit, or
    /// an answer is owed.
    var isHeld: Bool { suspended || backpressure || rateHeld || awaitsAnswer }

    var awaitsAnswer: Bool {
        switch state {
        case .askingRedirect, .followingAfterBody, .askingChallenge, .resendingAfterBody, .awaitingAnswer: true
        default: false
        }
    }

    /// Gathered bytes may go to the task (none before its response has been answered).
    var mayFlush: Bool { !awaitsAnswer }

    /// Header lines still belong to the response head (later ones are trailers).
    var readsHead: Bool { state == .head }

    var isAskingRedirect: Bool {
        if case .askingRedirect = state { true } else { false }
    }

    /// The inactivity timeout counts: bytes are expected from the network, not from the consumer or delegate.
    var timeoutApplies: Bool {
        switch state {
        case .followingAfterBody, .resendingAfterBody: true  // the redirect's or challenge's body is awaited
        case .ended, .failing, .partComplete, .finished: false
        default: !isHeld
        }
    }

    var mayPumpParts: Bool {
        guard multipart, !isHeld else { return false }
        switch state {
        case .streaming, .ended: return true
        default: return false
        }
    }

    // MARK: Events from libcurl's callbacks

    /// The head is a redirect the task may follow: the delegate is asked.
    mutating func redirectHeadArrived() -> Action {
        guard state == .head else { return impossible("a redirect head") }
        state = .askingRedirect(ended: nil)
        return .askRedirect
    }

    /// The head is an authentication challenge the delegate answers.
    mutating func challengeHeadArrived() -> Action {
        guard state == .head else { return impossible("a challenge head") }
        state = .askingChallenge(ended: nil)
        askingWithoutResponse = false
        return .askChallenge
    }

    /// The request ended before any head because the server's certificate did not verify: the delegate may
    /// trust it (the request is then sent again) or not (the task ends with `error`).
    mutating func untrustedServer(_ error: TransferError) -> Action {
        guard state == .head else { return impossible("an untrusted server") }
        state = .askingChallenge(ended: Ending(error: error))
        askingWithoutResponse = true
        return .askChallenge
    }

    /// The proxy refused the tunnel with a 407 (libcurl keeps CONNECT's head to itself, so no head came): asked as
    /// for an untrusted server, without a response; the request is sent again with a credential or ends with `error`.
    mutating func tunnelRefused(_ error: TransferError) -> Action {
        guard state == .head else { return impossible("a refused tunnel") }
        return untrustedServer(error)
    }

    /// The final head (not a redirect the task follows, not a 1xx) is complete: the response goes to the task
    /// now, as URLSession delivers it, not at the first body byte. A suspended task gets it once resumed (with
    /// the first byte, or at the end); a multipart stream's responses are its parts.
    mutating func headArrived(isMultipart: Bool) -> Action {
        guard state == .head else { return impossible("a response head") }
        if suspended { return .none }
        if isMultipart {
            multipart = true
            state = .streaming
            return .none
        }
        state = .awaitingAnswer(ended: nil)
        return .deliverResponse
    }

    /// Body bytes arrived. `fits`: they fit the gather buffer; `isMultipart`: the head names a multipart stream
    /// (read only when the response starts here).
    mutating func bodyArrived(fits: Bool, isMultipart: Bool) -> Action {
        switch state {
        case .failing, .partComplete:
            return .refuse
        case .ended, .finished:
            return impossible("body bytes")
        case .head:
            if suspended { return .pauseReceiving }
            if isMultipart {
                multipart = true
                state = .streaming
                return .feedParts
            }
            state = .awaitingAnswer(ended: nil)
            return .deliverResponse
        case .askingRedirect, .followingAfterBody, .askingChallenge, .resendingAfterBody, .awaitingAnswer:
            // While only the answer is awaited, a small body gathers instead of pausing libcurl at once.
            return !suspended && !backpressure && !rateHeld && !multipart && fits ? .gather : .pauseReceiving
        case .streaming:
            if suspended || backpressure || rateHeld { return .pauseReceiving }
            return multipart ? .feedParts : .gather
        }
    }

    /// The splitter found the head of the next part.
    mutating func partStarted(isDownload: Bool) -> Action {
        guard multipart, state == .streaming || endingSoFar != nil else { return impossible("a multipart part") }
        if isDownload {  // the converted part is complete
            state = .partComplete
            return .refuse
        }
        state = .awaitingAnswer(ended: endingSoFar)
        return .deliverResponse
    }

    /// Something refused the transfer: the task (a resumed download given the wrong range), its upload body, the
    /// redirect limit, a broken multipart stream. The first failure stands. In a libcurl callback the driver
    /// refuses the bytes and `ended` follows; elsewhere it calls `flowResumed()` to end the transfer.
    mutating func fail(_ error: TransferError) -> Action {
        switch state {
        case .finished: return impossible("a failure (\(error.code.rawValue))")
        case .failing: return .refuse
        default:
            state = .failing(error)
            return .refuse
        }
    }

    /// The bytes libcurl offers are refused: the transfer is ending on purpose.
    var refusesBody: Bool {
        switch state {
        case .failing, .partComplete: true
        default: false
        }
    }

    /// libcurl reports the request done (`error` from its result code).
    mutating func ended(_ error: TransferError?, headComplete: Bool) -> Action {
        switch state {
        case .head:
            guard headComplete || error == nil else { return finishWhenFree(error) }
            // No body byte came (HEAD, an empty body, a failure right after the head): the response still
            // reaches the delegate first.
            state = .awaitingAnswer(ended: Ending(error: error))
            return .deliverResponse
        case .askingRedirect(nil):
            state = .askingRedirect(ended: Ending(error: error))  // the answer decides
            return .none
        case .followingAfterBody(let request):
            state = .finished
            return .follow(request)
        case .askingChallenge(nil):
            state = .askingChallenge(ended: Ending(error: error))  // the answer decides
            return .none
        case .resendingAfterBody:
            state = .finished
            return .resend
        case .awaitingAnswer(nil):
            state = .awaitingAnswer(ended: Ending(error: error))
            return .none
        case .streaming:
            state = .ended(error)
            return multipart ? .pumpParts : finishWhenFree(error)
        case .failing(let failure):
            return finishWhenFree(failure)
        case .partComplete:
            return finishWhenFree(nil)
        case .askingRedirect, .askingChallenge, .awaitingAnswer, .ended, .finished:
            return impossible("the end of the request")
        }
    }

    // MARK: Events from the loop

    /// The delegate's answer to the redirect: follow `request`, or (nil) take the redirect as the response.
    /// `shortBody`: the redirect's body is short enough to read to its end before following.
    mutating func redirectAnswered(_ request: Request?, shortBody: Bool) -> Action {
        guard case .askingRedirect(let ending) = state else { return impossible("a redirect answer") }
        guard let request else {
            state = .awaitingAnswer(ended: ending)
            return .deliverResponse
        }
        if ending == nil && shortBody {
            state = .followingAfterBody(request)
            return .none
        }
        state = .finished
        return .follow(request)
    }

    /// The delegate's answer to a challenge: send the request again with a credential, or (false) take the
    /// 401 or 407 as the response. `shortBody` as for redirects.
    /// A server-trust challenge has no response: refused, the task ends with the verification error.
    mutating func challengeAnswered(resend: Bool, shortBody: Bool) -> Action {
        guard case .askingChallenge(let ending) = state else { return impossible("a challenge answer") }
        guard resend else {
            if askingWithoutResponse { return finishWhenFree(ending?.error) }
            state = .awaitingAnswer(ended: ending)
            return .deliverResponse
        }
        if ending == nil && shortBody {
            state = .resendingAfterBody
            return .none
        }
        state = .finished
        return .resend
    }

    /// The delegate allowed the response (or a part).
    mutating func answerAllowed() -> Action {
        guard case .awaitingAnswer(let ending) = state else { return impossible("an allowed response") }
        state = ending.map { .ended($0.error) } ?? .streaming
        return multipart ? .pumpParts : flowResumed()
    }

    /// A data task's transfer now belongs to a download task, which counts its buffered bytes from zero and
    /// needs no answer to its response.
    mutating func adoptedByDownload() -> Action {
        backpressure = false
        switch state {
        case .askingRedirect, .followingAfterBody, .askingChallenge, .resendingAfterBody:
            return .none  // still held for the delegate's answer
        case .awaitingAnswer: return answerAllowed()
        case .finished: return impossible("a conversion")
        default: return multipart ? .pumpParts : flowResumed()
        }
    }

    mutating func suspend() -> Action {
        guard state != .finished else { return impossible("a suspension") }
        suspended = true
        return hasEnded ? .none : .pauseAll  // stop sending too, not only receiving
    }

    /// The consumer is behind: bytes stop until it drains.
    mutating func holdForBackpressure() {
        backpressure = true
    }

    /// Releases are idempotent: a resume, a drained consumer or a conversion may each arrive after the hold they
    /// undo has already gone (commands from other threads race the loop), and nothing is wrong then.
    mutating func resume() -> Action { release { $0.suspended = false } }

    mutating func drained() -> Action { release { $0.backpressure = false } }

    /// The bytes are ahead of the receive limit: the next ones pause libcurl until `rateCaughtUp`. Only a
    /// request that is receiving can be ahead.
    mutating func holdForRate() -> Action {
        switch state {
        case .ended, .failing, .partComplete, .finished: return impossible("a receive-limit hold")
        default:
            rateHeld = true
            return .none
        }
    }

    mutating func rateCaughtUp() -> Action { release { $0.rateHeld = false } }

    private mutating func release(_ change: (inout RequestStateMachine) -> Void) -> Action {
        guard state != .finished else { return impossible("a release") }
        change(&self)
        guard !isHeld else { return .none }
        return multipart && !refusesBody ? .pumpParts : flowResumed()
    }

    /// After a release, a failure outside a callback, or the splitter pumped: what the transfer does now.
    mutating func flowResumed() -> Action {
        switch state {
        case .failing(let error): return finishWhenFree(error)
        case .partComplete: return finishWhenFree(nil)
        case .ended(let error): return isHeld ? .none : finishWhenFree(error)
        case .head, .streaming: return isHeld || isLocal ? .none : .unpause
        case .askingRedirect, .followingAfterBody, .askingChallenge, .resendingAfterBody, .awaitingAnswer: return .none
        case .finished: return impossible("a resumed flow")
        }
    }

    /// A local body (data:, file:) is open: its response goes to the task at once.
    mutating func localStarted() -> Action {
        guard isLocal, state == .head else { return impossible("a local body's start") }
        state = .awaitingAnswer(ended: nil)
        return .deliverResponse
    }

    /// A local body (data:, file:) has nothing more to read.
    mutating func localBodyEnded() -> Action {
        guard isLocal, state == .streaming else { return impossible("the end of a local body") }
        state = .ended(nil)
        return finishWhenFree(nil)
    }

    /// The driver ended the transfer (cancelled, failed from outside, timed out, followed, finished).
    mutating func finished() {
        state = .finished
    }

    // MARK: Helpers

    /// libcurl has reported the request done.
    var hasEnded: Bool {
        switch state {
        case .ended: true
        case .askingRedirect(let ending), .askingChallenge(let ending), .awaitingAnswer(let ending): ending != nil
        default: false
        }
    }

    private var endingSoFar: Ending? {
        if case .ended(let error) = state { return Ending(error: error) }
        return nil
    }

    private var currentFailure: TransferError? {
        if case .failing(let error) = state { return error }
        return nil
    }

    /// A suspended task completes only once resumed, so that no byte or completion reaches a suspended delegate.
    private mutating func finishWhenFree(_ error: TransferError?) -> Action {
        if suspended {
            state = .ended(error)
            return .none
        }
        return finishNow(with: error)
    }

    private mutating func finishNow(with error: TransferError?) -> Action {
        state = .finished
        return .finish(error)
    }

    /// The transfer then ends with the internal error (refused in a callback, at once elsewhere), whatever
    /// the driver does with the message.
    private mutating func impossible(_ event: String) -> Action {
        let message = "internal error: \(event) cannot happen while the request is \(state)"
        state = .failing(TransferError(.unknown, message))
        return .internalError(message)
    }
}
