// Making upload tasks: a body from memory, a file or a stream, with the delegate, a handler, or async/await.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Session {
    /// The request's method is used as given, except GET, which cannot carry a body and becomes POST.
    public func uploadTask(with request: Request, body: UploadBody) -> UploadTask {
        var request = request
        if request.method.uppercased() == "GET" { request.method = "POST" }
        request.body = nil
        return register { UploadTask(identifier: $0, request: request, body: body, session: self) }
    }

    public func uploadTask(with request: Request, from data: Data) -> UploadTask {
        uploadTask(with: request, body: .data(data))
    }

    /// The file is streamed from disk while it is sent, never read whole into memory.
    public func uploadTask(with request: Request, fromFile fileURL: URL) -> UploadTask {
        uploadTask(with: request, body: .file(fileURL.path))
    }

    /// The handler gets the response body, as for a data task.
    public func uploadTask(with request: Request, body: UploadBody,
                           completionHandler: @escaping @Sendable (Data?, Response?, TransferError?) -> Void) -> UploadTask {
        let task = uploadTask(with: request, body: body)
        task.internalDelegate = BodyCollector(completionHandler)
        return task
    }

    /// Sends the body and returns the response body and the response.
    public func upload(for request: Request, body: UploadBody, delegate: SessionTaskDelegate? = nil)
        async throws(TransferError) -> (Data, Response) {
        try await completion(of: request) { finish in
            let task = uploadTask(with: request, body: body) { data, response, error in finish(data ?? Data(), response, error) }
            task.delegate = delegate
            return task
        }
    }
}
