// A data task that sends a body from memory, a file or a stream; the response comes back as for a data task.

public final class UploadTask: DataTask, @unchecked Sendable {
    let body: UploadBody

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
}
