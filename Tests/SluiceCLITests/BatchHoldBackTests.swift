// Several URLs to standard output go out in order; a later one whose body waits for its turn is suspended once
// `BatchDelegate.waitLimit` bytes of it wait, and goes on when its turn comes. `sluice get a.iso b.iso | consumer`
// kept all of b.iso in memory while a.iso went out (found by a tester: 1 GB resident).
import Dispatch
import Foundation
import SluiceEngine
import SluiceScenarioServer
import Testing
@testable import SluiceCLI

@Suite struct BatchHoldBackTests {
    /// Everything read from `fd` until its writer closes it, on a thread of its own; `fd` is closed then.
    static func readAll(_ fd: Int32) -> Task<Data, Never> {
        Task { await offThePool { () -> Data in
            var data = Data(), buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let n = Glibc.read(fd, &buffer, buffer.count)
                guard n > 0 else { break }
                data.append(contentsOf: buffer[0..<n])
            }
            close(fd)
            return data
        } }
    }

    @Test func aLaterBodyWaitsSuspendedNotInMemory() async throws {
        let server = try CLIServers.shared()
        let gate = "hold-\(UInt32.random(in: 0...UInt32.max))"
        let later = 40 << 20
        let texts = [server.url("/drip?bytes=2048&chunk=1024&interval=10&gate=\(gate)").absoluteString,
                     server.url("/bytes/\(later)?hold=\(gate)").absoluteString]
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let delegate = BatchDelegate(targets: try URLTargets(texts), prepared: PreparedRequest(method: "GET"), concurrency: 2,
                                     outputDirectory: nil, sink: FileDescriptorSink(fd: ends[1]))
        let session = Session(configuration: .default, delegate: delegate)
        let read = ends[0], written = ends[1]
        // Read and run on threads of their own: blocked on the cooperative pool, they left this test no thread.
        let reader = Self.readAll(read)
        let run = Task { await offThePool {
            delegate.run(on: session)
            session.finishTasksAndInvalidate()
            close(written)
        } }
        // Held back while the first waits at its gate: the second's body stops at about the limit.
        let deadline = DispatchTime.now().uptimeNanoseconds + 120_000_000_000  // a bound, not a wait: a sanitizer run is slow
        func heldBack() async -> Bool {
            await withCheckedContinuation { done in session.delegateQueue.async { done.resume(returning: delegate.isHoldingBack) } }
        }
        while await !heldBack(), DispatchTime.now().uptimeNanoseconds < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(await heldBack(), "\(delegate.mostWaiting) bytes waiting")
        server.openGate(gate)
        await run.value
        let out = await reader.value
        #expect(out.count == 2048 + later)
        #expect(out.dropFirst(2048) == Data(ScenarioPattern.bytes(offset: 0, count: later)), "the second body whole, after the first")
        #expect(delegate.mostWaiting <= BatchDelegate.waitLimit + (8 << 20), "\(delegate.mostWaiting) bytes waited at once")
        #expect(delegate.failures.isEmpty, "\(delegate.failures)")
    }

    /// Held-back tasks keep their places: one place always stays for the head, so that a head that fails and is
    /// retried is not left waiting behind them for ever (found in review: `--retry 2 -j 2 A BIG BIG` could hang).
    @Test func aRetriedHeadIsNotLeftWaitingBehindHeldBodies() async throws {
        let server = try CLIServers.shared()
        let key = "held-\(UInt32.random(in: 0...UInt32.max))"
        let big = 20 << 20
        let texts = [server.url("/flaky/2048?key=\(key)&fail=1&status=503&retry-after=1").absoluteString,
                     server.url("/bytes/\(big)?a=\(key)").absoluteString, server.url("/bytes/\(big)?b=\(key)").absoluteString]
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let delegate = BatchDelegate(targets: try URLTargets(texts), prepared: PreparedRequest(method: "GET"), concurrency: 2,
                                     outputDirectory: nil, sink: FileDescriptorSink(fd: ends[1]))
        var policy = RetryPolicy(maximumRetries: 2)
        policy.jitter = 0
        delegate.retries = BatchRetries(loop: RetryLoop(policy: policy, method: "GET"))
        var configuration = SessionConfiguration.default
        configuration.maximumConcurrentTasks = 2
        let session = Session(configuration: configuration, delegate: delegate)
        let read = ends[0], written = ends[1]
        let reader = Self.readAll(read)
        let finished = DispatchSemaphore(value: 0)
        let run = Task { await offThePool {
            delegate.run(on: session)
            finished.signal()
        } }
        // A hang is a failure, not a stuck test run: after 120 s the session is cancelled, which ends the run.
        let ended = await offThePool { finished.wait(timeout: .now() + 120) == .success }
        #expect(ended, "the retried head waited behind the held bodies")
        if !ended { session.invalidateAndCancel() }
        await run.value
        session.finishTasksAndInvalidate()
        close(written)
        let out = await reader.value
        #expect(out.count == 2048 + 2 * big)
        #expect(server.requestCount("/flaky/2048?key=\(key)&fail=1&status=503&retry-after=1") == 2)
    }
}
