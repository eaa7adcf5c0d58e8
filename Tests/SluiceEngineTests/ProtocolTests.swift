// What the wire may bring before and around a response: 1xx informational responses and compressed bodies.
import Dispatch
import Foundation
import SluiceEngine
import SluiceScenarioServer
import SluiceLock
import Testing

/// Records informational responses besides the Recorder's calls.
final class InformationalRecorder: SessionDataDelegate, @unchecked Sendable {
    let seen = Locked<[String]>([])
    let queue = DispatchQueue(label: "test.informational")

    func urlSession(_ session: Session, task: SessionTask, didReceiveInformationalResponse response: Response) {
        seen.withLock { $0.append("\(response.statusCode ?? 0) \(response.headers["Link"] ?? "")") }
    }
    func urlSession(_ session: Session, dataTask: DataTask, didReceive response: Response,
                    completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) {
        seen.withLock { $0.append("response \(response.statusCode ?? 0)") }
        completionHandler(.allow)
    }
    func urlSession(_ session: Session, task: SessionTask, didCompleteWithError error: TransferError?) {
        seen.withLock { $0.append("complete") }
    }
}

@Suite struct ProtocolTests {
    @Test func earlyHintsComeBeforeTheResponse() async throws {
        let server = try Servers.shared()
        let recorder = InformationalRecorder()
        let log = EventLog()
        let session = Session(delegate: recorder, delegateQueue: recorder.queue, eventMonitor: log.monitor)
        defer { session.finishTasksAndInvalidate() }
        session.dataTask(with: server.url("/early-hints")).resume()
        #expect(await eventually { recorder.seen.withLock { $0.contains("complete") } })
        #expect(recorder.seen.withLock { $0 } == ["103 </style.css>; rel=preload; as=style", "response 200", "complete"])
        #expect(log.names.contains("didReceiveInformationalResponse"))
    }

    @Test(arguments: ["gzip", "deflate", "br"])
    func compressedBodiesArriveDecoded(_ encoding: String) async throws {
        let server = try Servers.shared()
        let session = Session()
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.data(from: server.url("/encoded/\(encoding)"))
        #expect(response.headers["Content-Encoding"] == encoding)
        #expect(String(decoding: data, as: UTF8.self) == EncodedBodies.text)
    }
}
