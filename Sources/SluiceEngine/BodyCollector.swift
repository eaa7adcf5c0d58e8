// The delegate behind completion-handler data tasks: gathers the body and answers once at the end.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

final class BodyCollector: SessionDataDelegate, @unchecked Sendable {
    private let completion: @Sendable (Data?, Response?, TransferError?) -> Void
    private var body = Data()  // delegate queue only

    init(_ completion: @escaping @Sendable (Data?, Response?, TransferError?) -> Void) {
        self.completion = completion
    }

    // The handler replaces the response and data calls (so the session's delegate is not asked about them);
    // redirects and metrics still reach the session's delegate through the protocol's defaults.
    func urlSession(_ session: Session, dataTask: DataTask, didReceive response: Response,
                    completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) {
        completionHandler(.allow)
    }

    func urlSession(_ session: Session, dataTask: DataTask, didReceive data: Data) {
        body.append(data)
    }

    func urlSession(_ session: Session, task: SessionTask, didCompleteWithError error: TransferError?) {
        completion(error == nil ? body : nil, task.response, error)
    }
}
