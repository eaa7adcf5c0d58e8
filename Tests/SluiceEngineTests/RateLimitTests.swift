// Receive limits: how a session's limit is shared (pure), and that the limits reach the running transfers'
// easy handles. Their accuracy is measured by Benchmarks/rate-limit, not here: a timed test would only hope.
import Foundation
import Testing
@testable import SluiceEngine

@Suite struct RateShareTests {
    func flow(_ id: Int, cap: Int64? = nil, measured: Double? = nil, allotted: Int64? = nil) -> RateShare.Flow {
        RateShare.Flow(id: id, cap: cap, measured: measured, allotted: allotted)
    }

    @Test func equalPartsForTransfersThatUseThem() {
        let shares = RateShare.allot(total: 4_000_000, flows: (1...4).map { flow($0) })
        #expect(shares == [1: 1_000_000, 2: 1_000_000, 3: 1_000_000, 4: 1_000_000])
    }

    /// Found by a tester: `--limit-rate 9223372036854775807` crashed converting the share back to Int64.
    @Test func aLimitPastWhatTheArithmeticTakesIsNoCrash() {
        let shares = RateShare.allot(total: .max, flows: [flow(1), flow(2, cap: .max)])
        #expect(shares.count == 2 && shares.values.allSatisfy { ($0 ?? 0) > 0 })
        #expect(RateGovernor.corrected(.max, debt: 0) == RateGovernor.ceiling)
        #expect(RateGovernor.corrected(.max, debt: -1e30) > 0)
    }

    @Test func aTaskLimitBelowItsPartLeavesTheRestToTheOthers() {
        let shares = RateShare.allot(total: 3_000_000, flows: [flow(1, cap: 600_000), flow(2), flow(3)])
        #expect(shares == [1: 600_000, 2: 1_200_000, 3: 1_200_000])
    }

    @Test func aSlowTransferKeepsWhatItUsesWithRoomToGrow() {
        let shares = RateShare.allot(total: 4_000_000, flows: [
            flow(1, measured: 200_000, allotted: 1_000_000), flow(2, measured: 1_000_000, allotted: 1_000_000),
            flow(3, measured: 990_000, allotted: 1_000_000), flow(4, measured: 1_010_000, allotted: 1_000_000),
        ])
        #expect(shares[1] == 250_000)
        #expect(shares[2] == 1_250_000 && shares[3] == 1_250_000 && shares[4] == 1_250_000)
    }

    /// Given its use plus a quarter, a slow transfer uses 80 % of its part: that must still count as slow, or the
    /// share would swing between the two every half second.
    @Test func aSlowTransferStaysSlowAtTheNextShare() {
        let shares = RateShare.allot(total: 4_000_000, flows: [
            flow(1, measured: 260_000, allotted: 325_000), flow(2, measured: 1_225_000, allotted: 1_225_000),
            flow(3, measured: 1_225_000, allotted: 1_225_000), flow(4, measured: 1_225_000, allotted: 1_225_000),
        ])
        #expect(shares[1] == 325_000)
    }

    @Test func aTransferThatUsesAllOfAReducedPartGetsAnEqualOneAgain() {
        let shares = RateShare.allot(total: 2_000_000, flows: [
            flow(1, measured: 250_000, allotted: 250_000), flow(2, measured: 1_750_000, allotted: 1_750_000),
        ])
        #expect(shares == [1: 1_000_000, 2: 1_000_000])
    }

    @Test func whenNobodyUsesItsPartTheLimitIsStillSharedWhole() {
        let shares = RateShare.allot(total: 1_000_000, flows: [
            flow(1, measured: 0, allotted: 500_000), flow(2, measured: 100_000, allotted: 500_000),
        ])
        #expect(shares.values.compactMap { $0 }.reduce(0, +) >= 999_998)
    }

    /// What a capped transfer cannot take of the rest goes to the others, not nowhere.
    @Test func theRestSkipsATransferAtItsCap() {
        let shares = RateShare.allot(total: 400_000, flows: [
            flow(1, cap: 100_000, measured: 0, allotted: 100_000), flow(2, measured: 0, allotted: 300_000),
        ])
        #expect(shares == [1: 100_000, 2: 300_000])
    }

    @Test func withoutASessionLimitEachTaskHasItsOwn() {
        let expected: [Int: Int64?] = [1: 5000, 2: nil]
        #expect(RateShare.allot(total: nil, flows: [flow(1, cap: 5000), flow(2)]) == expected)
    }

    @Test func aShareIsNeverZeroWhichLibcurlReadsAsUnlimited() {
        let shares = RateShare.allot(total: 3, flows: (1...8).map { flow($0) })
        #expect(shares.values.allSatisfy { ($0 ?? 0) >= 1 })
    }

    @Test func libcurlIsGivenLessWhileATransferIsAheadAndMoreWhileBehind() {
        #expect(RateGovernor.corrected(1_000_000, debt: 0) == 1_000_000)
        #expect(RateGovernor.corrected(1_000_000, debt: 200_000) == 900_000)
        #expect(RateGovernor.corrected(1_000_000, debt: -200_000) == 1_100_000)
        #expect(RateGovernor.corrected(1_000_000, debt: 10_000_000) == 250_000)
    }
}

@Suite struct RateLimitTests {
    /// The loop's view of a task's limit (the task must be running).
    func limit(of task: SessionTask, in session: Session) async -> RateGovernor.Limit? {
        await withCheckedContinuation { continuation in
            session.appliedRateLimit(of: task) { continuation.resume(returning: $0) }
        }
    }

    func running(_ tasks: [DataTask]) async -> Bool {
        await eventually { tasks.allSatisfy { $0.response != nil } }
    }

    @Test func aTaskLimitReachesItsRunningTransferAndCanBeChangedAndLifted() async throws {
        let server = try Servers.shared()
        let session = Session()
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: server.url("/stall?rate=1"))
        task.resume()
        #expect(await running([task]))
        #expect(await limit(of: task, in: session) == nil)
        task.maximumBytesPerSecond = 300_000
        let first = await limit(of: task, in: session)
        #expect(first?.allotted == 300_000)
        #expect(first.map { (75_000...600_000).contains($0.applied) } == true)
        task.maximumBytesPerSecond = 50_000
        #expect(await limit(of: task, in: session)?.allotted == 50_000)
        task.maximumBytesPerSecond = nil
        #expect(await limit(of: task, in: session) == nil)
    }

    /// A limit given to a transfer that is already receiving at full speed: libcurl's receive buffer is full-sized
    /// by then and cannot be shrunk, and its own pacing let whatever sat in the socket through at once (MBs), then
    /// waited that long silent, which the inactivity timeout took for a dead server. Bounds, not timing: bytes may
    /// only ever trail the limit, never exceed its allowance by more than one read; the transfer must go on.
    @Test func aLimitGivenToATransferAtFullSpeedHoldsItFromThenOnWithoutAStall() async throws {
        let server = try Servers.shared()
        var configuration = SessionConfiguration()
        configuration.timeoutIntervalForRequest = 2
        let session = Session(configuration: configuration)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: server.url("/drip?bytes=100000000000&chunk=65536&interval=5"))
        task.resume()
        #expect(await eventually { task.countOfBytesReceived >= 4_000_000 })
        let rate: Int64 = 300_000
        task.maximumBytesPerSecond = rate
        #expect(await limit(of: task, in: session)?.allotted == rate, "\(task.state) \(String(describing: task.error))")
        let start = task.countOfBytesReceived
        let startedAt = uptimeNow()
        // Three seconds' worth, which the silence that ended the transfer before came well before.
        let reached = await eventually(20) { task.countOfBytesReceived >= start + 3 * rate || task.state == .completed }
        let seconds = Double(uptimeNow() - startedAt) / 1e9
        #expect(reached && task.state == .running, "\(String(describing: task.error))")
        let allowance = Int64(Double(rate) * (seconds + 1)) + Int64(configuration.receiveBufferSize)
        #expect(task.countOfBytesReceived - start <= allowance, "\(task.countOfBytesReceived - start) in \(seconds) s")
    }

    @Test func theSessionLimitIsSharedAndChangesLive() async throws {
        let server = try Servers.shared()
        var configuration = SessionConfiguration()
        configuration.maximumBytesPerSecond = 1_000_000
        let session = Session(configuration: configuration)
        defer { session.invalidateAndCancel() }
        let tasks = (0..<2).map { session.dataTask(with: server.url("/stall?share=\($0)")) }
        tasks.forEach { $0.resume() }
        #expect(await running(tasks))
        var parts: [Int64] = []
        for task in tasks { parts.append(await limit(of: task, in: session)?.allotted ?? 0) }
        #expect(parts.reduce(0, +) >= 999_998 && parts.reduce(0, +) <= 1_000_000, "\(parts)")
        #expect(parts.allSatisfy { $0 >= 400_000 }, "\(parts)")

        session.setMaximumBytesPerSecond(400_000)
        tasks[0].maximumBytesPerSecond = 100_000
        let capped = await limit(of: tasks[0], in: session)?.allotted ?? 0
        let other = await limit(of: tasks[1], in: session)?.allotted ?? 0
        #expect(capped >= 1 && capped <= 100_000, "\(capped)")
        #expect(other >= 300_000 && capped + other <= 400_000, "\(other)")

        session.setMaximumBytesPerSecond(nil)
        #expect(await limit(of: tasks[1], in: session) == nil)
        #expect(await limit(of: tasks[0], in: session)?.allotted == 100_000)
    }

    /// The loop's receive budget and the tasks it holds back.
    func budget(of session: Session) async -> (ReceiveBudget?, [Int]) {
        await withCheckedContinuation { continuation in
            session.receiveBudget { continuation.resume(returning: ($0, $1)) }
        }
    }

    /// Responses of a few kilobytes come in one read, before libcurl's own pacing can hold them: the session's
    /// budget counts every byte of them anyway (with a limit high enough here to hold nothing back).
    @Test func theSessionLimitCountsEveryByteOfSmallResponses() async throws {
        let server = try Servers.shared()
        var configuration = SessionConfiguration()
        configuration.maximumBytesPerSecond = 500_000_000
        let session = Session(configuration: configuration)
        defer { session.invalidateAndCancel() }
        let sizes = [10, 700, 16_384, 30_000]
        let tasks = sizes.map { session.dataTask(with: server.url("/bytes/\($0)")) }
        tasks.forEach { $0.resume() }
        #expect(await eventually { tasks.allSatisfy { $0.state == .completed } })
        let (counted, held) = await budget(of: session)
        #expect(counted?.spent == Int64(sizes.reduce(0, +)))
        #expect(held.isEmpty)
    }

    @Test func withoutASessionLimitNothingIsCountedOrHeld() async throws {
        let server = try Servers.shared()
        let session = Session()
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: server.url("/bytes/1000"))
        task.resume()
        #expect(await eventually { task.state == .completed })
        let (counted, held) = await budget(of: session)
        #expect(counted == nil && held.isEmpty)
    }

    /// At 1 byte a second, a 600-byte response (whole in libcurl's first read, so its own pacing cannot stretch it)
    /// puts the session ten minutes ahead of its limit: the next task waits (its start is held, not refused), and a
    /// cancel ends it there. Ten minutes, because a starved run must still find it waiting: under ThreadSanitizer,
    /// with every test at once, more than the 29 s that 20 B/s gave passed between two steps here, even with the
    /// limit lowered right after the first response (the change came after the debt was paid).
    @Test func bytesAheadOfTheSessionLimitHoldTheNextStartBack() async throws {
        let server = try Servers.shared()
        var configuration = SessionConfiguration()
        configuration.maximumBytesPerSecond = 1
        let session = Session(configuration: configuration)
        defer { session.invalidateAndCancel() }
        let first = session.dataTask(with: server.url("/bytes/600"))
        first.resume()
        #expect(await eventually(20) { first.state == .completed })
        let next = session.dataTask(with: server.url("/bytes/10"))
        next.resume()
        let (counted, held) = await budget(of: session)
        #expect(counted.map { $0.balance < 0 } == true, "\(String(describing: counted))")
        #expect(held == [next.taskIdentifier])
        next.cancel()
        #expect(await eventually { next.state == .completed })
        #expect(next.error?.code == .cancelled)
        #expect(await budget(of: session).1.isEmpty)
    }
}
