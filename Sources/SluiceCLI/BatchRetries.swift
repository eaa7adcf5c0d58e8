// Retries for `sluice get` with several URLs: each URL keeps its own count and waits in its own slot, and a body
// already written to standard output is never sent twice. Which bodies are held back is decided here, for -f's
// error pages as for the errors a retry will replace (GetDelegate's `withholdsBody` is the one-URL counterpart).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import SluiceEngine
import SluiceViewModel

/// BatchDelegate's delegate queue only.
struct BatchRetries {
    let loop: RetryLoop
    private var made: [Int: Int] = [:]          // position -> retries made
    private var firstStart: [Int: UInt64] = [:]  // position -> uptime of its first attempt
    private var withheld = Set<Int>()            // task identifiers whose body is not written (see `responseArrived`)
    private var written = Set<Int>()             // positions with bytes on standard output
    private var pending = Set<Int>()             // positions waiting for their retry
    private(set) var isStopped = false
    /// -f: a response of 400 or more writes nothing.
    let hidesErrorBodies: Bool
    /// False with --retry 0 (get's default for standard output): then nothing below needs a record of any URL, and
    /// keeping them cost a clock read and six hashed lookups a request, in tables that grew to every URL.
    private var retries: Bool { loop.policy.maximumRetries > 0 }

    init(loop: RetryLoop, hidesErrorBodies: Bool = false) {
        self.loop = loop
        self.hidesErrorBodies = hidesErrorBodies
    }

    enum Next {
        case retry(after: Double, resumeData: Data?)
        /// No retry: `giveUp` says why when retries were allowed (nil for success or a failure never retried).
        case finished(giveUp: String?)
    }

    /// The body of `task`'s response is held back when -f hides its status, or when a retry will replace it.
    mutating func responseArrived(_ response: Response, task: Int, at position: Int) {
        if hidesErrorBodies, let status = response.statusCode, status >= 400 { withheld.insert(task) }
        guard retries else { return }
        if firstStart[position] == nil { firstStart[position] = DispatchTime.now().uptimeNanoseconds }
        guard let status = response.statusCode, loop.policy.isRetried(.status(status, retryAfter: nil)),
              (made[position] ?? 0) < loop.policy.maximumRetries, !isStopped else { return }
        withheld.insert(task)
    }

    func withholds(_ task: Int) -> Bool { !withheld.isEmpty && withheld.contains(task) }

    mutating func wrote(_ position: Int) {
        if retries { written.insert(position) }
    }

    mutating func attemptEnded(_ task: SessionTask, at position: Int, error: TransferError?, url: URL, keepsFiles: Bool) -> Next {
        let wasWithheld = !withheld.isEmpty && withheld.remove(task.taskIdentifier) != nil
        guard retries else { return .finished(giveUp: nil) }  // nothing is retried
        let start = firstStart[position] ?? DispatchTime.now().uptimeNanoseconds
        firstStart[position] = start
        guard !isStopped,
              let cause = RetryPolicy.Failure.of(error: error, response: task.response) else {
            return .finished(giveUp: nil)
        }
        let retriesMade = made[position] ?? 0
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        switch loop.policy.decide(after: cause, method: loop.method, retriesMade: retriesMade, elapsed: elapsed,
                                  now: RetryLoop.wallClock()) {
        case .giveUp(let why, _):
            return .finished(giveUp: why == .notRetried ? nil : why.description)
        case .retry where !keepsFiles && !wasWithheld && written.contains(position):
            // Bytes on standard output or a stream cannot be taken back: such a URL is not retried, and says so.
            return .finished(giveUp: "not retried: its first bytes are already written")
        case .retry(let delay, let number, let of, let reason):
            made[position] = retriesMade + 1
            pending.insert(position)
            StandardStreams.error("sluice: \(Sanitized.text(url.absoluteString)): retrying in \(WaitText.of(delay)) "
                                  + "(\(number)/\(of)): \(Sanitized.text(reason))\n")
            loop.traceRetry(number: number, of: of, delay: delay, reason: reason, url: url)
            return .retry(after: delay, resumeData: keepsFiles ? error?.resumeData : nil)
        }
    }

    /// True when the retry should start now (false once stopped: the position was finished by `stop`).
    mutating func retryIsDue(_ position: Int) -> Bool {
        pending.remove(position) != nil
    }

    /// Ends every wait; the positions that were waiting.
    mutating func stop() -> [Int] {
        isStopped = true
        defer { pending = [] }
        return pending.sorted()
    }
}
