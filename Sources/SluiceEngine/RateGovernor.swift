// The transfer loop's side of receive limits: measures each running transfer, shares the session's limit between
// them (RateShare) and hands each easy handle its part as CURLOPT_MAX_RECV_SPEED_LARGE.
import CCurl

/// Loop thread only. libcurl paces each easy handle itself: it stops reading the socket while the handle's average
/// since the start of its current window (reset every 3 s) is above the limit, and it reads the limit afresh at each
/// check, so a new value takes effect on a running transfer (libcurl 7.74 and later start that window with the
/// transfer; before, a limit set mid-transfer was measured from 1970 and never held: curl issue 6162). But it checks
/// only between bursts of up to 100 buffers, and a buffer can be sized only before the transfer starts: a transfer
/// whose burst would be more than a second of its limit is paced by the engine instead (ReceivePacer).
final class RateGovernor {
    private(set) var sessionLimit: Int64?
    /// A transfer started or ended, or a limit changed: share again in this turn.
    private var dirty = false
    private var nextShare: UInt64 = 0
    private var flows: [ObjectIdentifier: FlowState] = [:]
    private let receiveBufferSize: Int
    /// Transfers the engine paces or has paced: the loop lets each go on once its limit allows (`pacedDue`).
    private var paced: [ObjectIdentifier: Transfer] = [:]

    private struct FlowState {
        /// What the easy handle was last given; 0: no limit.
        var applied: Int64 = 0
        var allotted: Int64?
        var sampledBytes: Int64 = 0
        var sampledAt: UInt64
        var measured: Double?
        /// Bytes received minus bytes the allotments allowed since the transfer was first limited: libcurl lets a
        /// burst through at each of its windows (more at low limits), and this is what corrects for it.
        var debt: Double = 0
        var lastBytes: Int64 = 0
        var lastShare: UInt64
        /// What libcurl reads at a time: the session's size unless a limit came before the transfer started.
        var bufferSize: Int
        /// The engine paces it (its limit came too late or is too low for libcurl); for the rest of its life.
        var byEngine = false
    }

    /// libcurl reads up to this many buffers in a row before it looks at the limit again.
    static let readsPerBurst: Int64 = 100

    /// A debt is repaid over this many seconds; credit (bytes not taken) is kept for at most one second's worth,
    /// so a transfer that was slow cannot burst far past its limit when it speeds up.
    static let repayment = 2.0

    /// How often the session's limit is shared again while transfers run.
    static let interval: UInt64 = 500_000_000
    /// A rate measured over less time than this is noise (libcurl reads in buffer-sized bursts).
    static let shortestSample: UInt64 = 900_000_000

    /// The session's limit over every byte received, while it has one: the loop starts no transfer while bytes are
    /// ahead of it (see ReceiveBudget).
    private(set) var budget: ReceiveBudget?
    /// A limit was set where there was none: the running transfers' bytes so far are not counted against it.
    private var countFromNow = false
    /// Transfers that ended while counted, and their bytes: what a start costs on average.
    private var endedTransfers = 0
    private var endedBytes: Int64 = 0

    init(sessionLimit: Int64?, receiveBufferSize: Int, now: UInt64 = uptimeNow()) {
        self.sessionLimit = Self.normalized(sessionLimit)
        self.receiveBufferSize = receiveBufferSize
        budget = self.sessionLimit.map { ReceiveBudget(limit: $0, now: now) }
    }

    func setSessionLimit(_ limit: Int64?, now: UInt64 = uptimeNow()) {
        sessionLimit = Self.normalized(limit)
        dirty = true
        if budget == nil, sessionLimit != nil { countFromNow = true }
        budget = sessionLimit.map { budget?.changed(to: $0, now: now) ?? ReceiveBudget(limit: $0, now: now) }
    }

    /// Counts what each running transfer received since the last count; nothing without a session limit.
    func account<C: Collection>(_ transfers: C) where C.Element == Transfer {
        guard budget != nil else { return }
        for t in transfers { count(t) }
        countFromNow = false
    }

    /// The bytes `t` received since it was last counted go against the budget; all it received so far, or nil
    /// when libcurl cannot say.
    @discardableResult
    private func count(_ t: Transfer) -> Int64? {
        guard budget != nil, let easy = t.easy else { return nil }
        var received: curl_off_t = 0
        guard sluice_easy_getinfo_off(easy, CURLINFO_SIZE_DOWNLOAD_T, &received) == CURLE_OK else { return nil }
        let bytes = Int64(received)
        guard bytes > t.budgetCounted else { return bytes }  // still within what its start was charged
        if !countFromNow { budget?.spend(bytes - t.budgetCounted) }
        t.budgetCounted = bytes
        return bytes
    }

    /// Whether one more transfer may start now, and what it is charged in advance: always (0) without a session
    /// limit; with one, only while nothing is owed, charged the average ended transfer's bytes (0 before any has
    /// ended). The charge paces the starts that come before their bytes do; the transfer's own count takes it back
    /// as its bytes arrive, and what it does not use is refunded when it ends.
    func reserveStart(now: UInt64) -> Int64? {
        guard var budget else { return 0 }
        budget.advance(to: now)
        guard budget.allowsStart else {
            self.budget = budget
            return nil
        }
        let charge = endedTransfers > 0 ? endedBytes / Int64(endedTransfers) : 0
        budget.spend(charge)
        self.budget = budget
        return charge
    }

    /// A charge given back: the transfer it was made for did not start.
    func refund(_ bytes: Int64) {
        if bytes > 0 { budget?.refund(bytes) }
    }

    /// How long until a transfer may start, as of the last `reserveStart`.
    var nanosecondsUntilStart: UInt64 { budget?.nanosecondsUntilStart ?? 0 }

    /// A transfer started or ended, or a task's own limit changed.
    func transfersChanged() { dirty = true }

    /// The transfer is leaving the loop; its easy handle goes back to the spares with no limit (curl_easy_reset).
    func forget(_ transfer: Transfer) {
        // Its last bytes, which may be all it had (a small response comes in one read); data: and file: transfers
        // receive nothing from the network and are not counted.
        if budget != nil, transfer.easy != nil {
            let bytes = count(transfer) ?? 0
            if transfer.budgetCounted > bytes { refund(transfer.budgetCounted - bytes) }  // charged more than it used
            endedTransfers += 1
            endedBytes += bytes
        }
        flows[ObjectIdentifier(transfer)] = nil
        paced[ObjectIdentifier(transfer)] = nil
        dirty = true
    }

    /// The paced transfers that are held and may go on now; the loop releases them (which may end them).
    func pacedDue(now: UInt64) -> [Transfer] {
        guard !paced.isEmpty else { return [] }
        return paced.values.filter { $0.isRateHeld && $0.mayGoOn(now: now) }
    }

    /// Called once per loop turn; costs nothing unless a share is due.
    func share<C: Collection>(_ transfers: C, now: UInt64) where C.Element == Transfer {
        guard dirty || (now >= nextShare && !flows.isEmpty) else { return }
        dirty = false
        nextShare = now &+ Self.interval
        var present: [(Transfer, UnsafeMutableRawPointer, Int64?)] = []
        for t in transfers {
            guard let easy = t.easy else { continue }  // data: and file: URLs are read by the engine, not received
            let cap = t.task.maximumBytesPerSecond  // within `ceiling` as it was set
            if sessionLimit == nil, cap == nil, flows[ObjectIdentifier(t)] == nil { continue }  // never limited
            present.append((t, easy, cap))
        }
        var kept: [ObjectIdentifier: FlowState] = [:]
        var input: [RateShare.Flow] = []
        for (index, (t, easy, cap)) in present.enumerated() {
            let isNew = flows[ObjectIdentifier(t)] == nil
            var state = flows[ObjectIdentifier(t)] ?? FlowState(sampledAt: now, lastShare: now, bufferSize: receiveBufferSize)
            if isNew { state.applied = -1 }  // not yet given: the buffer is sized below, before its first read
            var received: curl_off_t = 0
            if sluice_easy_getinfo_off(easy, CURLINFO_SIZE_DOWNLOAD_T, &received) == CURLE_OK {
                let bytes = Int64(received)
                if let allotted = state.allotted {
                    let allowed = Double(allotted) * Double(now &- state.lastShare) / 1e9
                    state.debt = max(-Double(allotted), state.debt + Double(bytes - state.lastBytes) - allowed)
                } else {
                    state.debt = 0
                }
                state.lastBytes = bytes
                state.lastShare = now
                if now &- state.sampledAt >= Self.shortestSample {
                    state.measured = Double(max(0, bytes - state.sampledBytes)) * 1e9 / Double(now &- state.sampledAt)
                    state.sampledBytes = bytes
                    state.sampledAt = now
                }
            }
            kept[ObjectIdentifier(t)] = state
            input.append(RateShare.Flow(id: index, cap: cap, measured: state.measured, allotted: state.allotted))
        }
        let allotment = RateShare.allot(total: sessionLimit, flows: input)
        for (index, (t, easy, _)) in present.enumerated() {
            let key = ObjectIdentifier(t)
            guard var state = kept[key] else { continue }
            let limit = allotment[index] ?? nil
            state.allotted = limit
            let value = limit.map { Self.corrected($0, debt: state.debt) } ?? 0
            if state.applied == -1 {
                // libcurl 7.88 reads up to 100 buffers in one go while the socket has data, and only then checks
                // the limit: with 256 KiB buffers a 1 MiB/s transfer came in 3 MB bursts and ended 5-10 % early. A
                // buffer of 1/256 of the limit bounds a burst to 0.4 s worth. Not smaller: a transfer otherwise
                // reads about one buffer per loop turn, and with 1/512 one that was given more at a re-share could
                // not take it (measured: stuck near its first part).
                // Refused once the transfer has begun (its buffer is allocated): then it keeps the session's size.
                if value > 0 {
                    let size = min(receiveBufferSize, max(1024, Int(value / 256)))
                    if sluice_easy_setopt_long(easy, CURLOPT_BUFFERSIZE, size) == CURLE_OK { state.bufferSize = size }
                }
                state.applied = 0
            }
            if let limit, !state.byEngine, Int64(state.bufferSize) * Self.readsPerBurst > limit {
                state.byEngine = true
                paced[key] = t
            }
            let libcurlValue = state.byEngine ? 0 : value
            t.pace(rate: state.byEngine ? limit : nil, now: now)
            if libcurlValue != state.applied,
               sluice_easy_setopt_off(easy, CURLOPT_MAX_RECV_SPEED_LARGE, curl_off_t(libcurlValue)) == CURLE_OK {
                state.applied = libcurlValue
            }
            // A transfer that has no limit and never needs one again is forgotten.
            kept[key] = sessionLimit == nil && limit == nil ? nil : state
        }
        flows = kept
    }

    struct Limit: Sendable, Equatable {
        /// The transfer's share: its own limit, or its part of the session's, whichever is lower.
        let allotted: Int64
        /// What libcurl holds now: the share corrected for what libcurl let through past it so far; or the share
        /// itself, which the engine holds.
        let applied: Int64
        let byEngine: Bool
    }

    /// The transfer's receive limit; nil when it has none.
    func limit(of transfer: Transfer) -> Limit? {
        guard let state = flows[ObjectIdentifier(transfer)], let allotted = state.allotted else { return nil }
        if state.byEngine { return Limit(allotted: allotted, applied: allotted, byEngine: true) }
        return state.applied > 0 ? Limit(allotted: allotted, applied: state.applied, byEngine: false) : nil
    }

    /// The limit libcurl is given so that the bytes received meet `allotted` on average.
    static func corrected(_ allotted: Int64, debt: Double) -> Int64 {
        let allotted = min(allotted, ceiling)
        let rate = Double(allotted) - debt / repayment
        return max(1, Int64(min(max(rate, Double(allotted) / 4), Double(allotted) * 2)))
    }

    private static func normalized(_ limit: Int64?) -> Int64? {
        guard let limit, limit > 0 else { return nil }
        return min(limit, ceiling)
    }

    /// The largest limit the arithmetic takes (1 PiB a second: no limit in practice), applied where a limit comes in
    /// (a task's setter, the session's `normalized`). `--limit-rate` of 2^63 bytes a second overflowed an Int64
    /// conversion and crashed (found by a tester).
    static let ceiling: Int64 = 1 << 50
}
