// How a session-wide receive limit is divided between its running transfers: pure, so tests drive it directly.

/// Max-min fairness ("water filling"): every transfer gets an equal part of the session's limit, except one that
/// cannot use its part (its own limit is lower, or it was measured well below what it was given: a slow server, a
/// suspended task, a consumer holding it back), which gets what it uses plus room to grow; what it leaves is shared
/// by the others, and what nobody seems able to use is shared by all, so the parts always add up to the limit. A transfer that uses all of a reduced part is given an equal part again at the next share.
enum RateShare {
    struct Flow: Equatable {
        let id: Int
        /// The task's own limit, bytes per second; nil: none.
        var cap: Int64?
        /// Bytes per second received since the last share; nil right after it started.
        var measured: Double?
        /// What the last share gave it; nil when it had no limit or is new.
        var allotted: Int64?
    }

    /// Below this fraction of its part a transfer counts as unable to use it. Above 1 / `headroom`, so that a slow
    /// transfer given its use plus headroom still counts as slow at the next share (at 0.8 the share swung between
    /// the two every half second); a busy transfer measured a little under its part by libcurl's bursts is given
    /// at least its equal part anyway, since its use plus headroom is more than that.
    static let underuse = 0.9
    /// An underusing transfer is given this much more than it used, to find out whether it can go faster.
    static let headroom = 1.25

    /// The receive limit for each flow, by id: nil means none (no session limit and no cap of its own).
    static func allot(total: Int64?, flows: [Flow]) -> [Int: Int64?] {
        guard let total, total > 0, !flows.isEmpty else {
            return Dictionary(uniqueKeysWithValues: flows.map { ($0.id, $0.cap.map { max(1, $0) }) })
        }
        // Someone idle still gets a small part, so it can show that it wants more.
        let floor = Double(total) / Double(flows.count * 8)
        let demands: [(id: Int, demand: Double)] = flows.map { flow in
            var demand = flow.cap.map(Double.init) ?? .infinity
            if let measured = flow.measured, let allotted = flow.allotted, measured < Double(allotted) * underuse {
                demand = min(demand, max(measured * headroom, floor))
            }
            return (flow.id, demand)
        }.sorted { $0.demand < $1.demand || ($0.demand == $1.demand && $0.id < $1.id) }
        var remaining = Double(total)
        var given: [(id: Int, rate: Double, cap: Double)] = []
        for (index, entry) in demands.enumerated() {
            let share = remaining / Double(demands.count - index)
            let rate = min(entry.demand, share)
            remaining -= rate
            let cap = flows.first { $0.id == entry.id }?.cap.map(Double.init) ?? .infinity
            given.append((entry.id, rate, cap))
        }
        // Left over only when every transfer seemed unable to use its part; a measurement is noisy (libcurl reads in
        // bursts), so the rest goes back to those not at their own cap rather than leave the session under its limit.
        for _ in given.indices where remaining >= 1 {  // what a capped one cannot take goes round again
            let open = given.indices.filter { given[$0].rate < given[$0].cap }
            guard !open.isEmpty else { break }
            let each = remaining / Double(open.count)
            for index in open {
                let extra = min(each, given[index].cap - given[index].rate)
                given[index].rate += extra
                remaining -= extra
            }
        }
        var result: [Int: Int64?] = [:]
        for entry in given {
            // 0 would mean "no limit" to libcurl; a rate past Int64 (a limit of 2^63 bytes a second) is no limit anyway.
            result[entry.id] = max(1, Int64(exactly: entry.rate.rounded(.down)) ?? Int64.max)
        }
        return result
    }
}
