// The session's receive limit over every byte that arrives, as a token bucket. libcurl paces each easy handle (see
// RateGovernor), but only once a transfer has run a while: a response of a few kilobytes arrives in one read and
// is never held back, so a list of small files went through at any speed (`--limit-rate 2M` over 2,000 files of
// 16 KiB ran at 100 MB/s, and so does curl's). This budget counts those bytes too, and while they are ahead of the
// limit the loop starts no new transfer. Pure: the loop passes the time in. Loop thread only.

struct ReceiveBudget: Equatable {
    /// Bytes per second, above zero.
    let limit: Int64
    /// Bytes that may arrive now without passing the limit; below zero, what arrived ahead of it (a debt).
    private(set) var balance: Double
    /// Every byte counted so far.
    private(set) var spent: Int64 = 0
    private var updated: UInt64

    /// At most this many seconds' worth is saved up while little arrives: a quiet spell does not buy a long burst.
    static let savedSeconds = 1.0

    init(limit: Int64, now: UInt64, balance: Double = 0) {
        precondition(limit > 0, "a receive budget needs a limit above zero")
        self.limit = limit
        self.balance = min(balance, Double(limit) * Self.savedSeconds)
        updated = now
    }

    /// The limit's bytes for the time since the last call are added (a clock that goes back adds nothing).
    mutating func advance(to now: UInt64) {
        guard now > updated else { return }
        balance = min(Double(limit) * Self.savedSeconds, balance + Double(limit) * Double(now - updated) / 1e9)
        updated = now
    }

    /// Bytes that arrived.
    mutating func spend(_ bytes: Int64) {
        guard bytes > 0 else { return }
        balance -= Double(bytes)
        spent += bytes
    }

    /// Bytes charged in advance and not used: given back, within what may be saved up.
    mutating func refund(_ bytes: Int64) {
        guard bytes > 0 else { return }
        balance = min(Double(limit) * Self.savedSeconds, balance + Double(bytes))
        spent -= bytes
    }

    /// A new transfer may start: nothing is owed.
    var allowsStart: Bool { balance >= 0 }

    /// How long until a new transfer may start, from the last `advance`; 0 when it may now.
    var nanosecondsUntilStart: UInt64 {
        balance >= 0 ? 0 : UInt64(min(-balance / Double(limit) * 1e9, 3.6e12).rounded(.up))  // at most an hour
    }

    /// The same budget under another limit: what is owed stays owed, what was saved is capped anew.
    func changed(to limit: Int64, now: UInt64) -> ReceiveBudget {
        var next = self
        next.advance(to: now)
        var result = ReceiveBudget(limit: limit, now: now, balance: next.balance)
        result.spent = spent
        return result
    }
}
