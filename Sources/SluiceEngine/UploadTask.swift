// A data task that sends a body from memory, a file or a stream; the response comes back as for a data task.
import Synchronization

public final class UploadTask: DataTask, @unchecked Sendable {
    /// Replaced only by the loop thread, when the delegate gives a new stream for a request sent again.
    var body: UploadBody

    init(identifier: Int, request: Request, body: UploadBody, session: Session) {
        self.body = body
        var expected: Int64 = -1
        switch body {
        case .data(let data): expected = Int64(data.count)
        case .file(let path): expected = FileSize.of(path) ?? -1
        case .stream: expected = -1
        }
        super.init(identifier: identifier, request: request, session: session, expectedToSend: expected)
    }

    /// Loop thread: the streamed body must go out again; the delegate is asked for a new stream.
    func askForNewBodyStream() {
        let answered = Atomic<Bool>(false)
        let id = taskIdentifier
        let handler: @Sendable (UploadStream?) -> Void = { [session] stream in
            guard !answered.exchange(true, ordering: .acquiringAndReleasing) else { return }  // first answer wins
            session.loop.send(.newBodyStream(id, stream))
        }
        session.loop.deliver { [self] in
            emit(.needNewBodyStream)
            if let target {
                target.urlSession(session, task: self, needNewBodyStream: handler)
            } else {
                handler(nil)
            }
        }
    }
}
