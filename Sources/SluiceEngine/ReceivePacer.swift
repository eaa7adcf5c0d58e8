// A receive limit the engine keeps itself, for a transfer libcurl cannot pace: one whose limit came after its
// receive buffer was allocated full-sized (libcurl 7.88 refuses CURLOPT_BUFFERSIZE then), or one whose limit is so
// low that even the smallest buffer makes a burst of many seconds. libcurl reads up to 100 buffers in a row while
// the socket has data and only then checks its limit, so such a transfer took megabytes at once and then waited
// silent for as long, long enough for the inactivity timeout to end it. The pacer instead holds the bytes in the
// write callback (CURL_WRITEFUNC_PAUSE), which stops libcurl's reading after at most one callback's worth.

/// A token bucket of bytes. Pure: the caller passes the clock. Loop thread only, as part of its `Transfer`.
struct ReceivePacer: Equatable {
    private(set) var rate: Int64
    /// Bytes that may still be received; negative after a callback took more than there was (it cannot be split).
    private(set) var tokens: Double
    private var refilledAt: UInt64

    /// A tenth of a second's worth to begin with: a limit set on a running transfer takes effect at once.
    init(rate: Int64, now: UInt64) {
        self.rate = max(1, rate)
        tokens = Double(self.rate) / 10
        refilledAt = now
    }

    /// At most a second's worth is saved up, so a transfer that was slow (the server's doing) cannot burst far
    /// past its limit when it speeds up.
    private var capacity: Double { Double(rate) }

    /// A new rate from now on; what was saved up is kept within the new capacity.
    mutating func change(rate newRate: Int64, now: UInt64) {
        refill(now: now)
        rate = max(1, newRate)
        tokens = min(tokens, capacity)
    }

    /// Whether the next bytes may be received now.
    mutating func mayReceive(now: UInt64) -> Bool {
        refill(now: now)
        return tokens > 0
    }

    /// Bytes were received: they are taken whole, even past what was left.
    mutating func take(_ count: Int) {
        tokens -= Double(count)
    }

    private mutating func refill(now: UInt64) {
        guard now > refilledAt else { return }
        tokens = min(capacity, tokens + Double(rate) * Double(now - refilledAt) / 1e9)
        refilledAt = now
    }
}
