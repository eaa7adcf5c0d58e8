// `sluice get`'s --retry, --retry-delay, --retry-max-time, --retry-connrefused, --retry-all-errors and --limit-rate
// (curl's meanings), and the loop that runs attempts.
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import SluiceEngine
import SluiceViewModel

struct RetryOptions: ParsableArguments {
    @Option(name: .customLong("retry"),
            parsing: .unconditional, help: ArgumentHelp("Retry a failed transfer up to N times: a lost connection, a timeout, 408, 429, 500, 502, 503, 504; waits 1 s, then twice as long each time, or what Retry-After says. Default: \(RetryOptions.downloadRetries) for -o and --output-dir, 0 otherwise. Never for POST or PATCH.", valueName: "N"))
    var retry: Int?

    @Option(name: .customLong("retry-delay"),
            parsing: .unconditional, help: ArgumentHelp("Wait this many seconds before each retry, instead of 1 s doubling each time (a server's Retry-After still wins; 0: the doubling).", valueName: "seconds"))
    var retryDelay: Double?

    @Flag(name: .customLong("retry-connrefused"), help: "Retry a refused connection too (a server restarting).")
    var retryConnectionRefused = false

    @Flag(name: .customLong("retry-all-errors"), help: "Retry every failure and every status of 400 or more (still never a POST or a PATCH).")
    var retryAllErrors = false

    @Option(name: .customLong("retry-max-time"),
            parsing: .unconditional, help: ArgumentHelp("No retry starts more than this many seconds after the first attempt.", valueName: "seconds"))
    var retryMaxTime: Double?

    @Option(name: .customLong("limit-rate"),
            parsing: .unconditional, help: ArgumentHelp("At most this many bytes per second, for all transfers together; k, m, g (1024-based) as curl's.", valueName: "speed"))
    var limitRate: String?

    /// Tries a download makes by default: aria2's --max-tries is 5 tries; wget's -t 20 is too many to wait through
    /// on a server that is really down. Five retries with doubling waits span about half a minute.
    static let downloadRetries = 5

    /// Every flag as ArgumentParser leaves it when none is given, for a fast parse to fill in (a property wrapper
    /// left unset stops the program when read).
    static var unset: RetryOptions {
        var options = RetryOptions()
        options.retry = nil
        options.retryDelay = nil
        options.retryConnectionRefused = false
        options.retryAllErrors = false
        options.retryMaxTime = nil
        options.limitRate = nil
        return options
    }

    /// Whether any flag of the policy was given (the daemon keeps its own policy: `--background` refuses them).
    var givesPolicy: Bool { retry != nil || retryMaxTime != nil || retryDelay != nil || retryConnectionRefused || retryAllErrors }

    /// The policy for this command; `savesFiles` is true for -o FILE and --output-dir.
    /// -m without --retry is also the retries' --retry-max-time: no retry starts once -m has passed since the first
    /// attempt, so the command ends within about twice -m, near what a curl user expects of it (curl retries
    /// nothing by default; -o does, and `-m 2 -o FILE` against a silent server took 36 s over five attempts; found
    /// by a tester). A typed --retry (or --retry-max-time) keeps curl's -m for each attempt.
    func bounded(byMaxTime maxTime: Double?) -> RetryOptions {
        guard let maxTime, maxTime > 0, retry == nil, retryMaxTime == nil else { return self }
        var bounded = self
        bounded.retryMaxTime = maxTime
        return bounded
    }

    func policy(savesFiles: Bool) throws -> RetryPolicy {
        let count = retry ?? (savesFiles ? Self.downloadRetries : 0)
        guard count >= 0 else { throw CLIFailure(code: 2, message: "--retry needs a number of 0 or more") }
        var policy = RetryPolicy(maximumRetries: count)
        if let retryDelay {
            guard retryDelay >= 0, retryDelay.isFinite else { throw CLIFailure(code: 2, message: "--retry-delay needs a number of seconds") }
            if retryDelay > 0 {  // curl: 0 keeps the backoff
                policy.initialDelay = retryDelay
                policy.multiplier = 1
                policy.jitter = 0
                policy.maximumDelay = max(policy.maximumDelay, retryDelay)
            }
        }
        if retryConnectionRefused { policy.retriedErrors.insert(.cannotConnectToHost) }
        if retryAllErrors {
            policy.retriedErrors = Set(TransferError.Code.allCases).subtracting([.cancelled, .sessionInvalidated])
            policy.retriedStatuses = Set(400...599)
        }
        if let retryMaxTime {
            guard retryMaxTime >= 0, retryMaxTime.isFinite else {
                throw CLIFailure(code: 2, message: "--retry-max-time needs a number of seconds")
            }
            policy.maximumTime = retryMaxTime > 0 ? retryMaxTime : nil  // curl: 0 means no limit
            if retryMaxTime == 0 { policy.maximumRetryAfter = .infinity }  // no limit: any Retry-After is waited for
        }
        return policy
    }

    /// The receive limit in bytes per second; nil for none (no --limit-rate, or 0).
    func rateLimit() throws -> Int64? { try Self.rateLimit(limitRate) }

    /// `--limit-rate TEXT` as bytes per second; nil for none (not given, or 0).
    static func rateLimit(_ text: String?) throws(CLIFailure) -> Int64? {
        guard let text else { return nil }
        guard let bytes = parseRate(text) else {
            throw CLIFailure(code: 2, message: "--limit-rate: not a speed: \(Sanitized.text(text)) (say 500k, 2M or 1G)")
        }
        return bytes > 0 ? bytes : nil
    }

    /// curl's size syntax: a whole number of bytes, or one with a k, m or g suffix (either case; 1024-based; b is
    /// bytes). Nil for anything else, or a value past Int64.
    static func parseRate(_ text: String) -> Int64? { ByteCountText.parse(text) }
}

/// What ended an attempt that may be worth another: the message it would exit with, and why it failed.
struct AttemptFailure: Error {
    let failure: CLIFailure
    /// Nil when no retry can help (an interruption, a file that cannot be written).
    let cause: RetryPolicy.Failure?
}

/// Runs attempts until one succeeds or the policy gives up; between two, says why on stderr
/// (`sluice: retrying in 4 s (2/5): <reason>`) and waits, and Ctrl-C or SIGTERM ends the wait.
struct RetryLoop {
    let policy: RetryPolicy
    let method: String
    /// With --trace: each retry as a JSON line among the events, timed from this uptime.
    var traceStart: UInt64?

    func run(_ attempt: (_ retriesMade: Int) throws -> Void) throws {
        let start = DispatchTime.now().uptimeNanoseconds
        var made = 0
        while true {
            do {
                return try attempt(made)
            } catch let failed as AttemptFailure {
                guard let cause = failed.cause else { throw failed.failure }
                let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                switch policy.decide(after: cause, method: method, retriesMade: made, elapsed: elapsed, now: Self.wallClock()) {
                case .giveUp(let why, _):
                    guard made > 0 || policy.maximumRetries > 0, why != .notRetried else { throw failed.failure }
                    throw CLIFailure(code: failed.failure.code, message: failed.failure.message + " (\(why))")
                case .retry(let delay, let number, let of, let reason):
                    StandardStreams.error("sluice: retrying in \(WaitText.of(delay)) (\(number)/\(of)): \(Sanitized.text(reason))\n")
                    traceRetry(number: number, of: of, delay: delay, reason: reason, url: nil)
                    if let signal = Self.wait(delay) { throw CLIFailure(code: 128 + signal, message: "interrupted") }
                    made += 1
                }
            }
        }
    }

    /// `{"t":1.502113,"event":"retry","attempt":2,"of":6,"after":4,"reason":"..."}` on stderr with --trace (attempt 2
    /// of 6 is retry 1 of 5),
    /// between the events of the attempt that failed and those of the next (whose task numbers start again at 1: each
    /// attempt is a session of its own).
    func traceRetry(number: Int, of: Int, delay: Double, reason: String, url: URL?) {
        guard let traceStart else { return }
        var fields = [("t", SecondsText.format(nanoseconds: DispatchTime.now().uptimeNanoseconds &- traceStart, decimals: 6)),
                      ("event", TraceEncoder.quote("retry")), ("attempt", String(number + 1)), ("of", String(of + 1)),
                      ("after", Self.seconds(delay)), ("reason", TraceEncoder.quote(reason))]
        if let url { fields.append(("url", TraceEncoder.quote(url.absoluteString))) }
        StandardStreams.error(TraceEncoder.object(fields) + "\n")
    }

    /// Sleeps, unless Ctrl-C or SIGTERM comes first: then the signal.
    static func wait(_ seconds: Double) -> Int32? {
        let woken = DispatchSemaphore(value: 0)
        return SignalTrap.run(stoppingWith: { _ in woken.signal() }) {
            _ = woken.wait(timeout: .now() + .nanoseconds(Int(min(seconds, 1e6) * 1e9)))
        }
    }

    static func wallClock() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// "4", "0.5", "1.3": whole seconds as they are, anything else to a tenth.
    static func seconds(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return tenths % 10 == 0 ? String(tenths / 10) : "\(tenths / 10).\(tenths % 10)"
    }
}

extension RetryPolicy.Failure {
    /// Why an attempt failed, if it did: an HTTP status of 400 or above with its Retry-After (also when the
    /// transfer failed after it: a resumed download refuses an error page), or else the transfer's error.
    static func of(error: TransferError?, response: Response?) -> RetryPolicy.Failure? {
        if error?.code == .cancelled { return nil }
        if let status = response?.statusCode, status >= 400 {
            return .status(status, retryAfter: response?.headers["Retry-After"])
        }
        return error.map { .transfer($0) }
    }
}
