// The screen loop's sleep, on a pipe standing for the terminal: a key ends it at once, the driver's wake ends it
// (and is taken back), a wake that came too soon after the last pass waits its turn, and nothing ends it at the
// timeout.
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
@testable import SluiceTUI
import Testing

struct InputWaitTests {
    /// A pipe's two ends, closed when the test ends.
    final class Pipe {
        let read: Int32
        let write: Int32
        init() throws {
            var ends: [Int32] = [0, 0]
            guard pipe(&ends) == 0 else { throw POSIXError(errno) }
            read = ends[0]
            write = ends[1]
        }
        func type(_ byte: UInt8) { var b = byte; _ = Glibc.write(write, &b, 1) }
        deinit { close(read); close(write) }
    }
    struct POSIXError: Error { let code: Int32; init(_ code: Int32) { self.code = code } }

    @Test func aKeyEndsTheWaitEvenBeforeTheWakeIsHeeded() throws {
        let input = try Pipe()
        let wake = try #require(WakeSignal())
        wake.signal()
        input.type(UInt8(ascii: "q"))
        #expect(InputWait.wait(input: input.read, wake: wake, timeout: 1000, notBefore: 1000) == .input)
    }

    @Test func theWakeEndsTheWaitOnceAndIsTakenBack() throws {
        let input = try Pipe()
        let wake = try #require(WakeSignal())
        wake.signal()
        wake.signal()  // two signals before a wait read as one
        #expect(InputWait.wait(input: input.read, wake: wake, timeout: 1000) == .wake)
        #expect(InputWait.wait(input: input.read, wake: wake, timeout: 0) == .timeout)
    }

    @Test func aWakeTooSoonWaitsItsTurnAndIsNotDropped() throws {
        let input = try Pipe()
        let wake = try #require(WakeSignal())
        wake.signal()
        // Heeded from 20 ms on, within a 1 s limit: the wait ends with the wake, and not before its turn.
        var start = DispatchTime.now().uptimeNanoseconds
        #expect(InputWait.wait(input: input.read, wake: wake, timeout: 1000, notBefore: 20) == .wake)
        #expect(DispatchTime.now().uptimeNanoseconds - start >= 20_000_000)
        // A limit that ends before the wake's turn: the wake is still told, at the limit.
        wake.signal()
        start = DispatchTime.now().uptimeNanoseconds
        #expect(InputWait.wait(input: input.read, wake: wake, timeout: 5, notBefore: 1000) == .wake)
        #expect(DispatchTime.now().uptimeNanoseconds - start >= 5_000_000)
    }

    @Test func theLastTasksEndIsHeededAtOnceAndTakesTheWakeWithIt() throws {
        let input = try Pipe()
        let wake = try #require(WakeSignal())
        let urgent = try #require(WakeSignal())
        wake.signal()
        urgent.signal()
        // Neither the wake's turn (1 s) nor the limit (1 s) has come: only the urgent signal can end this wait.
        let start = DispatchTime.now().uptimeNanoseconds
        #expect(InputWait.wait(input: input.read, wake: wake, urgent: urgent, timeout: 1000, notBefore: 1000) == .wake)
        #expect(DispatchTime.now().uptimeNanoseconds - start < 900_000_000)
        // Both were taken back: the same pass drains what the wake announced.
        #expect(InputWait.wait(input: input.read, wake: wake, urgent: urgent, timeout: 0) == .timeout)
    }

    @Test func withNothingTheWaitEndsAtItsTimeout() throws {
        let input = try Pipe()
        #expect(InputWait.wait(input: input.read, wake: nil, timeout: 5) == .timeout)
        let wake = try #require(WakeSignal())
        #expect(InputWait.wait(input: input.read, wake: wake, timeout: 5, notBefore: 2) == .timeout)
    }

    /// The loop's first pass does not sleep: the events of work that started (or ended) before the loop set its
    /// wake signals signal no one, and it slept the whole timeout before its first frame (50 ms, measured with
    /// `perf trace` on `sluice -d --exit-when-done URL`). Later passes sleep, events heeded 10 ms after the last.
    @Test func theFirstPassRunsAtOnceAndLaterOnesArePaced() {
        #expect(InterfaceLoop.pause(since: nil, now: 5_000_000_000) == nil)
        #expect(InterfaceLoop.pause(since: 1_000_000_000, now: 1_003_000_000).map { [$0.timeout, $0.notBefore] } == [50, 7])
        #expect(InterfaceLoop.pause(since: 1_000_000_000, now: 1_015_000_000).map { [$0.timeout, $0.notBefore] } == [50, 0])
    }
}
