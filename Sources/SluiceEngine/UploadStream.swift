// A body the caller produces while the upload runs: writes wait while the engine is a buffer behind.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization
import SluiceLock

/// Write with `write(_:)` (it suspends while `capacity` bytes wait to be sent), then call `finish()`.
/// The engine reads from the transfer loop and pauses the upload, not the thread, while the stream is empty.
public final class UploadStream: Sendable {
    public let capacity: Int
    private let state = Locked(State())

    private struct State {
        var chunks: [Data] = []
        var headOffset = 0          // bytes of chunks[0] already read
        var queued = 0
        var finished = false
        var closed: TransferError?  // the task ended: writes fail
        var writers: [CheckedContinuation<Void, Never>] = []
        var wakeReader: (@Sendable () -> Void)?
    }

    public init(capacity: Int = 1 << 20) { self.capacity = max(1, capacity) }

    /// Queues `data`; waits while the stream is full. Throws once the upload task has ended.
    public func write(_ data: Data) async throws(TransferError) {
        while true {
            enum Step { case queued((@Sendable () -> Void)?), full, failed(TransferError) }
            let step = state.withLock { s -> Step in
                if let closed = s.closed { return .failed(closed) }
                if s.finished { return .failed(TransferError(.unknown, "write after finish() on an upload stream")) }
                guard s.queued < capacity else { return .full }
                if !data.isEmpty { s.chunks.append(data) }
                s.queued += data.count
                defer { s.wakeReader = nil }
                return .queued(s.wakeReader)
            }
            switch step {
            case .queued(let wake):
                wake?()
                return
            case .failed(let error):
                throw error
            case .full:
                await withCheckedContinuation { continuation in
                    let retryNow = state.withLock { s -> Bool in
                        guard s.queued >= capacity, s.closed == nil else { return true }
                        s.writers.append(continuation)
                        return false
                    }
                    if retryNow { continuation.resume() }
                }
            }
        }
    }

    /// No more bytes: the upload ends once the queued ones are sent.
    public func finish() {
        let wake = state.withLock { s -> (@Sendable () -> Void)? in
            s.finished = true
            defer { s.wakeReader = nil }
            return s.wakeReader
        }
        wake?()
    }

    enum Read { case bytes(Int), empty, end }

    /// Loop thread: copies queued bytes into `buffer`. On `.empty`, `wake` runs at the next write or finish.
    func read(into buffer: UnsafeMutableRawBufferPointer, wake: @escaping @Sendable () -> Void) -> Read {
        let (result, writers) = state.withLock { s -> (Read, [CheckedContinuation<Void, Never>]) in
            var copied = 0
            while copied < buffer.count, !s.chunks.isEmpty {
                let chunk = s.chunks[0]
                let n = min(buffer.count - copied, chunk.count - s.headOffset)
                chunk.withUnsafeBytes { raw in
                    let from = UnsafeRawBufferPointer(rebasing: raw[s.headOffset..<(s.headOffset + n)])
                    UnsafeMutableRawBufferPointer(rebasing: buffer[copied..<(copied + n)]).copyMemory(from: from)
                }
                copied += n
                s.headOffset += n
                if s.headOffset == chunk.count {
                    s.chunks.removeFirst()
                    s.headOffset = 0
                }
            }
            s.queued -= copied
            var released: [CheckedContinuation<Void, Never>] = []
            if s.queued < capacity { swap(&released, &s.writers) }
            if copied > 0 { return (.bytes(copied), released) }
            if s.finished { return (.end, released) }
            s.wakeReader = wake
            return (.empty, released)
        }
        for writer in writers { writer.resume() }
        return result
    }

    /// The task ended: waiting and later writes fail with `error`.
    func close(_ error: TransferError) {
        let writers = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            if s.closed == nil { s.closed = error }
            s.wakeReader = nil
            defer { s.writers.removeAll() }
            return s.writers
        }
        for writer in writers { writer.resume() }
    }
}
