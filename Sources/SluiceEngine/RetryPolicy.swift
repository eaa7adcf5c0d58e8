// Which failed attempts are tried again and after how long: a pure value shared by library callers, `sluice get`
// and the UI, so that all of them retry the same failures the same way.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

public struct RetryPolicy: Sendable, Equatable {
    /// Attempts after the first one (curl's `--retry N`); 0 never retries.
    public var maximumRetries: Int
    /// The wait before the first retry, in seconds; each later one waits `multiplier` times longer.
    public var initialDelay: Double = 1
    public var multiplier: Double = 2
    /// No backoff wait is longer than this (a server's Retry-After may be, within `maximumTime`).
    public var maximumDelay: Double = 120
    /// How much of each backoff wait is random: 0.5 waits between half and all of it, so that clients that failed
    /// together do not come back together.
    public var jitter: Double = 0.5
    /// Seconds since the first attempt after which no retry starts (curl's `--retry-max-time`); nil: no limit.
    public var maximumTime: Double?
    /// Without `maximumTime`, the longest Retry-After waited for: a server asking for more (a tester's said 27 h)
    /// is given up on rather than waited for by a command nobody watches. (`--retry-max-time 0`, no limit, makes it
    /// infinite.)
    public var maximumRetryAfter: Double = 3600
    /// Statuses worth asking again: the server says it is busy, overloaded or timed out, not that the request is wrong.
    public var retriedStatuses: Set<Int> = [408, 429, 500, 502, 503, 504]
    /// Failures of the connection rather than of the request. A refused connection is not among them, as in curl
    /// (`--retry-connrefused` adds it): usually nothing listens there, and waiting will not change that.
    public var retriedErrors: Set<TransferError.Code> = [.networkConnectionLost, .timedOut]
    /// Retry POST, PATCH and other methods that may change something each time they arrive; only for a caller who
    /// knows that the server makes them safe (an idempotency key).
    public var retriesNonIdempotentMethods = false

    public init(maximumRetries: Int) {
        self.maximumRetries = max(0, maximumRetries)
    }

    /// What made an attempt fail.
    public enum Failure: Sendable, Equatable {
        /// The transfer failed before a response was complete.
        case transfer(TransferError)
        /// A whole response with this status; `retryAfter` is its Retry-After field as sent.
        case status(Int, retryAfter: String?)
    }

    /// Why no further attempt is made.
    public enum GiveUp: Sendable, Equatable, CustomStringConvertible {
        /// This failure would fail again (a 404, a refused certificate, a bad URL).
        case notRetried
        /// The method may not be sent twice.
        case nonIdempotent(method: String)
        /// Every allowed retry has been made.
        case exhausted(retries: Int)
        /// The next attempt would start after `maximumTime`.
        case outOfTime(seconds: Double)
        /// The server's Retry-After asks for a longer wait than `maximumRetryAfter`.
        case waitTooLong(asked: Double, limit: Double)

        public var description: String {
            switch self {
            case .notRetried: "not a failure that a retry can get past"
            case .nonIdempotent(let method): "a \(method) request is not retried (it may not be safe to send twice)"
            case .exhausted(let retries): retries == 1 ? "gave up after 1 retry" : "gave up after \(retries) retries"
            case .outOfTime(let seconds): "gave up: no retry starts after \(Self.seconds(seconds)) s"
            case .waitTooLong(let asked, let limit):
                "gave up: the server asks to wait \(Self.seconds(asked)) s, more than \(Self.seconds(limit)) s (--retry-max-time allows longer)"
            }
        }

        static func seconds(_ value: Double) -> String {
            let tenths = Int((value * 10).rounded())
            return tenths % 10 == 0 ? String(tenths / 10) : "\(tenths / 10).\(tenths % 10)"
        }
    }

    public enum Decision: Sendable, Equatable {
        /// Wait `delay` seconds, then make retry number `attempt` of `of`; `reason` says what failed, for the user.
        case retry(after: Double, attempt: Int, of: Int, reason: String)
        case giveUp(GiveUp, reason: String)
    }

    /// The decision after a failed attempt. `retriesMade` counts the retries already made (0 after the first
    /// attempt fails); `elapsed` is the time in seconds since the first attempt started; `now` is the wall-clock
    /// time in seconds since 1970, for a Retry-After date; `random` returns a number in 0..<1 (injected so that
    /// tests choose it).
    public func decide(after failure: Failure, method: String, retriesMade: Int, elapsed: Double, now: Double,
                       random: () -> Double = { Double.random(in: 0..<1) }) -> Decision {
        let reason = Self.reason(failure)
        guard isRetried(failure) else { return .giveUp(.notRetried, reason: reason) }
        let verb = method.uppercased()
        guard retriesNonIdempotentMethods || Self.idempotentMethods.contains(verb) else {
            return .giveUp(.nonIdempotent(method: verb), reason: reason)
        }
        guard retriesMade < maximumRetries else { return .giveUp(.exhausted(retries: retriesMade), reason: reason) }
        let delay: Double
        if case .status(_, let field?) = failure, let asked = Self.retryAfter(field, now: now) {
            if maximumTime == nil, asked > maximumRetryAfter {
                return .giveUp(.waitTooLong(asked: asked, limit: maximumRetryAfter), reason: reason)
            }
            delay = asked  // the server knows when it will be ready; no jitter on top of its word
        } else {
            let base = min(maximumDelay, initialDelay * pow(multiplier, Double(retriesMade)))
            let fraction = min(max(random(), 0), 1)
            delay = base * (1 - min(max(jitter, 0), 1) * fraction)
        }
        if let maximumTime, elapsed + delay > maximumTime {
            return .giveUp(.outOfTime(seconds: maximumTime), reason: reason)
        }
        return .retry(after: delay, attempt: retriesMade + 1, of: maximumRetries, reason: reason)
    }

    public func isRetried(_ failure: Failure) -> Bool {
        switch failure {
        case .transfer(let error): retriedErrors.contains(error.code)
        case .status(let status, _): retriedStatuses.contains(status)
        }
    }

    /// RFC 9110's idempotent methods: sending one twice has the effect of sending it once.
    public static let idempotentMethods: Set<String> = ["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"]

    /// Seconds to wait from a Retry-After field: delay-seconds ("120") or an HTTP-date (a past date waits 0);
    /// nil when it is neither.
    public static func retryAfter(_ field: String, now: Double) -> Double? {
        let text = String(field.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) {
            return Double(text.prefix(10))  // ten digits are over 300 years: longer is no sensible wait either
        }
        guard let date = HTTPDate.parse(text) else { return nil }
        return max(0, date - now)
    }

    static func reason(_ failure: Failure) -> String {
        switch failure {
        case .transfer(let error):
            return error.message.isEmpty ? error.code.rawValue : error.message
        case .status(let status, _):
            return "the server answered \(status)"
        }
    }
}
