// async/await on top of the same delegate path: data(for:), data(from:) and bytes(for:).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization
import SluiceLock

extension Session {
    /// The whole body and the response. Cancelling the calling Swift task cancels the transfer. `delegate`
    /// hears this task's redirects, challenges and metrics (before the session's delegate would).
    public func data(for request: Request, delegate: SessionTaskDelegate? = nil) async throws(TransferError) -> (Data, Response) {
        try await completion(of: request) { finish in
            let task = dataTask(with: request) { data, response, error in finish(data ?? Data(), response, error) }
            task.delegate = delegate
            return task
        }
    }

    /// Runs the task `make` builds until its completion handler reports; cancelling the calling Swift task
    /// cancels it. A completion without an error but without a response is reported as a bad response.
    func completion<Value: Sendable>(
        of request: Request,
        _ make: (@escaping @Sendable (Value?, Response?, TransferError?) -> Void) -> SessionTask
    ) async throws(TransferError) -> (Value, Response) {
        let holder = TaskHolder()
        let result: Result<(Value, Response), TransferError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                holder.start(make { value, response, error in
                    if let value, let response, error == nil {
                        continuation.resume(returning: .success((value, response)))
                    } else {
                        continuation.resume(returning: .failure(error ?? TransferError(.badServerResponse, "no response",
                                                                                       failingURL: request.url)))
                    }
                })
            }
        } onCancel: {
            holder.cancel()
        }
        return try result.get()
    }

    public func data(from url: URL, delegate: SessionTaskDelegate? = nil) async throws(TransferError) -> (Data, Response) {
        try await data(for: Request(url: url), delegate: delegate)
    }

    /// The response as soon as it arrives, and the body as an async sequence of bytes. The transfer pauses
    /// while the consumer falls behind, so memory stays bounded by the configuration's buffer limit.
    public func bytes(for request: Request, delegate: SessionTaskDelegate? = nil) async throws(TransferError) -> (AsyncBytes, Response) {
        let stream = ByteStream()
        let task = dataTask(with: request)
        task.delegate = delegate
        task.internalDelegate = stream
        stream.task = task
        let holder = TaskHolder()
        let response: Result<Response, TransferError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                stream.onResponse = { continuation.resume(returning: $0) }
                holder.start(task)
            }
        } onCancel: {
            holder.cancel()
        }
        return (AsyncBytes(stream: stream), try response.get())
    }

    public func bytes(from url: URL, delegate: SessionTaskDelegate? = nil) async throws(TransferError) -> (AsyncBytes, Response) {
        try await bytes(for: Request(url: url), delegate: delegate)
    }
}

/// Starts a task unless cancellation came first, and cancels it if cancellation comes later.
final class TaskHolder: Sendable {
    private let state = Locked<(task: SessionTask?, cancelled: Bool)>((nil, false))

    func start(_ task: SessionTask) {
        let cancelled = state.withLock { s in
            s.task = task
            return s.cancelled
        }
        if cancelled { task.cancel() } else { task.resume() }
    }

    func cancel() {
        let task = state.withLock { s in
            s.cancelled = true
            return s.task
        }
        task?.cancel()
    }
}

/// The body of a `bytes(for:)` call, one byte at a time from buffered chunks. When the sequence and every
/// iterator made from it are gone, the transfer is cancelled: nobody is left to read what it holds.
public struct AsyncBytes: AsyncSequence, Sendable {
    public typealias Element = UInt8
    let reader: StreamReader

    init(stream: ByteStream) { reader = StreamReader(stream) }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let reader: StreamReader
        var chunk = Data()
        var index = 0

        /// Throws `.cancelled` when the calling Swift task is cancelled, and cancels the transfer.
        public mutating func next() async throws -> UInt8? {
            if index < chunk.count {
                defer { index += 1 }
                return chunk[chunk.startIndex + index]
            }
            if !chunk.isEmpty { reader.stream.consumed(chunk.count) }
            guard let next = try await reader.stream.nextChunk() else { return nil }
            chunk = next
            index = 1
            return next[next.startIndex]
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(reader: reader) }
}

/// Shared by an `AsyncBytes` and its iterators; the last of them to go cancels the transfer (a no-op once the
/// transfer has completed).
final class StreamReader: Sendable {
    let stream: ByteStream
    init(_ stream: ByteStream) { self.stream = stream }
    deinit { stream.abandon() }
}

/// The delegate behind AsyncBytes: chunks wait here, still counted against the task's buffer limit, until read.
final class ByteStream: SessionDataDelegate, CreditHolder, @unchecked Sendable {
    weak var task: SessionTask?
    var onResponse: (@Sendable (Result<Response, TransferError>) -> Void)?  // delegate queue only after start

    private struct State {
        var chunks: [Data] = []
        var head = 0
        var finished = false
        var error: TransferError?
        var waiter: CheckedContinuation<Data?, Error>?
    }
    private let state = Locked(State())

    func urlSession(_ session: Session, dataTask: DataTask, didReceive response: Response,
                    completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) {
        onResponse?(.success(response))
        onResponse = nil
        completionHandler(.allow)
    }

    func urlSession(_ session: Session, dataTask: DataTask, didReceive data: Data) {
        let waiter = state.withLock { s -> CheckedContinuation<Data?, Error>? in
            if let w = s.waiter {
                s.waiter = nil
                return w
            }
            s.chunks.append(data)
            return nil
        }
        waiter?.resume(returning: data)
    }

    func urlSession(_ session: Session, task: SessionTask, didCompleteWithError error: TransferError?) {
        if let error { onResponse?(.failure(error)) }
        onResponse = nil
        let waiter = state.withLock { s -> CheckedContinuation<Data?, Error>? in
            s.finished = true
            s.error = error
            defer { s.waiter = nil }
            return s.waiter
        }
        if let error { waiter?.resume(throwing: error) } else { waiter?.resume(returning: nil) }
    }

    func consumed(_ count: Int) { task?.releaseCredit(count) }

    func abandon() { task?.cancel() }

    /// Whether the task's completion has reached this stream (for a test's diagnostics).
    var hasFinished: Bool { state.withLock { $0.finished } }

    func nextChunk() async throws -> Data? {
        try await withTaskCancellationHandler {
            try await waitForChunk()
        } onCancel: {
            abandon()  // the transfer ends with .cancelled, which wakes the waiter below
        }
    }

    private func waitForChunk() async throws -> Data? {
        try await withCheckedThrowingContinuation { continuation in
            enum Answer { case chunk(Data), end, failure(TransferError), wait }
            let answer = state.withLock { s -> Answer in
                if s.head < s.chunks.count {
                    let chunk = s.chunks[s.head]
                    s.head += 1
                    if s.head > 64 { s.chunks.removeFirst(s.head); s.head = 0 }
                    return .chunk(chunk)
                }
                if s.finished { return s.error.map { .failure($0) } ?? .end }
                s.waiter = continuation
                return .wait
            }
            switch answer {
            case .chunk(let data): continuation.resume(returning: data)
            case .end: continuation.resume(returning: nil)
            case .failure(let error): continuation.resume(throwing: error)
            case .wait: break
            }
        }
    }
}
