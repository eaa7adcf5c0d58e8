// didReceive challenge against the scenario server's Basic, Digest and Bearer endpoints: each disposition, a
// refused credential asked again, default handling from the credential store, and no credential to another origin.
import Dispatch
import Foundation
@testable import SluiceEngine
import SluiceScenarioServer
import SluiceLock
import Testing

/// Answers each challenge with the next of `answers` (the last one repeats) and records what it saw.
final class ChallengeRecorder: SessionDataDelegate, @unchecked Sendable {
    struct State {
        var challenges: [AuthenticationChallenge] = []
        var statuses: [Int] = []
        var body = Data()
        var error: TransferError?
        var completions = 0
    }
    let state = Locked(State())
    let queue = DispatchQueue(label: "test.challenge")
    private let answers: [ChallengeDisposition]
    private let delay: Double

    init(_ answers: [ChallengeDisposition], delay: Double = 0) {
        self.answers = answers
        self.delay = delay
    }

    func urlSession(_ session: Session, task: SessionTask, didReceive challenge: AuthenticationChallenge,
                    completionHandler: @escaping @Sendable (ChallengeDisposition) -> Void) {
        let n = state.withLock { s in
            s.challenges.append(challenge)
            return s.challenges.count
        }
        let answer = answers[min(n, answers.count) - 1]
        if delay > 0 {
            DispatchQueue.global().asyncAfter(deadline: .now() + delay) { completionHandler(answer) }
        } else {
            completionHandler(answer)
        }
    }

    func urlSession(_ session: Session, dataTask: DataTask, didReceive response: Response,
                    completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) {
        state.withLock { $0.statuses.append(response.statusCode ?? 0) }
        completionHandler(.allow)
    }

    func urlSession(_ session: Session, dataTask: DataTask, didReceive data: Data) {
        state.withLock { $0.body.append(data) }
    }

    func urlSession(_ session: Session, task: SessionTask, didCompleteWithError error: TransferError?) {
        state.withLock { s in
            s.error = error
            s.completions += 1
        }
    }

    var snapshot: State { state.withLock { $0 } }

    func run(_ url: URL, configuration: SessionConfiguration = .default, log: EventLog? = nil) async -> State? {
        let session = Session(configuration: configuration, delegate: self, delegateQueue: queue, eventMonitor: log?.monitor)
        defer { session.finishTasksAndInvalidate() }
        session.dataTask(with: url).resume()
        guard await eventually(15, { self.snapshot.completions > 0 }) else {
            Issue.record("the task did not complete")
            return nil
        }
        return snapshot
    }
}

private let right = Credential(user: "ann", password: "s3cret")
private let wrong = Credential(user: "ann", password: "guess")

@Suite struct AuthenticationTests {
    @Test(arguments: ["basic-auth", "digest-auth"])
    func aCredentialAnswersTheChallenge(_ kind: String) async throws {
        let server = try Servers.shared()
        let log = EventLog()
        guard let s = await ChallengeRecorder([.useCredential(right)]).run(server.url("/\(kind)/ann/s3cret"), log: log)
        else { return }
        #expect(s.error == nil)
        #expect(s.statuses == [200])  // the 401 never became the task's response
        #expect(String(decoding: s.body, as: UTF8.self) == "authenticated ann\n")
        let space = try #require(s.challenges.first?.protectionSpace)
        #expect(space.authenticationMethod == (kind == "basic-auth" ? .basic : .digest))
        #expect(space.realm == "sluice")
        #expect(space.host == "127.0.0.1")
        #expect(s.challenges.first?.previousFailureCount == 0)
        #expect(s.challenges.first?.failureResponse?.statusCode == 401)
        #expect(log.names.contains("didReceiveChallenge"))
        #expect(log.events.contains(.challengeAnswer("useCredential")))
    }

    @Test(arguments: ["basic-auth", "digest-auth"])
    func aWrongPasswordIsAskedAgainWithItsFailureCount(_ kind: String) async throws {
        let server = try Servers.shared()
        guard let s = await ChallengeRecorder([.useCredential(wrong), .useCredential(right)])
            .run(server.url("/\(kind)/ann/s3cret")) else { return }
        #expect(s.challenges.map(\.previousFailureCount) == [0, 1])
        #expect(s.challenges.last?.proposedCredential == wrong)
        #expect(s.statuses == [200])
        #expect(s.error == nil)
    }

    @Test func rejectingTheSpaceMakesThe401TheResponse() async throws {
        let server = try Servers.shared()
        guard let s = await ChallengeRecorder([.rejectProtectionSpace]).run(server.url("/basic-auth/ann/s3cret")) else { return }
        #expect(s.statuses == [401])
        #expect(String(decoding: s.body, as: UTF8.self) == "credentials needed\n")
        #expect(s.error == nil)
    }

    @Test func cancellingTheChallengeCancelsTheTask() async throws {
        let server = try Servers.shared()
        guard let s = await ChallengeRecorder([.cancelAuthenticationChallenge]).run(server.url("/digest-auth/ann/s3cret"))
        else { return }
        #expect(s.error?.code == .cancelled)
        #expect(s.statuses.isEmpty)
    }

    @Test func theTransferWaitsForALateAnswer() async throws {
        let server = try Servers.shared()
        guard let s = await ChallengeRecorder([.useCredential(right)], delay: 0.3).run(server.url("/basic-auth/ann/s3cret"))
        else { return }
        #expect(s.statuses == [200])
    }

    @Test func defaultHandlingUsesTheStoredCredentialOnce() async throws {
        let server = try Servers.shared()
        let storage = CredentialStorage()
        let port = server.url("/").port ?? 0
        let space = ProtectionSpace(host: "127.0.0.1", port: port, protocol: "http", realm: "sluice", authenticationMethod: .basic)
        var configuration = SessionConfiguration.default
        configuration.credentialStorage = storage
        storage.set(right, for: space)
        guard let granted = await ChallengeRecorder([.performDefaultHandling])
            .run(server.url("/basic-auth/ann/s3cret"), configuration: configuration) else { return }
        #expect(granted.statuses == [200])
        // A stored credential that is refused is not sent twice: the 401 is the answer.
        storage.set(wrong, for: space)
        guard let refused = await ChallengeRecorder([.performDefaultHandling])
            .run(server.url("/basic-auth/ann/s3cret"), configuration: configuration) else { return }
        #expect(refused.challenges.map(\.previousFailureCount) == [0, 1])
        #expect(refused.statuses == [401])
    }

    @Test func aDelegateWithoutTheMethodGetsTheDefault() async throws {
        let server = try Servers.shared()
        let recorder = Recorder()
        var configuration = SessionConfiguration.default
        configuration.credentialStorage = CredentialStorage()  // empty: the 401 is the response
        let session = Session(configuration: configuration, delegate: recorder, delegateQueue: recorder.queue)
        defer { session.finishTasksAndInvalidate() }
        session.dataTask(with: server.url("/basic-auth/ann/s3cret")).resume()
        guard await recorder.waitForCompletion() else { return }
        #expect(recorder.snapshot.responses.map(\.statusCode) == [401])
    }

    @Test func aBearerTokenAnswersABearerChallenge() async throws {
        let server = try Servers.shared()
        guard let s = await ChallengeRecorder([.useCredential(Credential(user: "", password: "t0ken"))])
            .run(server.url("/bearer/t0ken")) else { return }
        #expect(s.challenges.first?.protectionSpace.authenticationMethod == .bearer)
        #expect(s.statuses == [200])
    }

    /// After the credential opened the door, a redirect to another origin (another host name for the same
    /// server) carries no Authorization.
    @Test func theCredentialNeverGoesToAnotherOrigin() async throws {
        let server = try Servers.shared()
        let port = server.url("/").port ?? 0
        let elsewhere = "http://localhost:\(port)/headers"
        let url = server.url("/basic-auth/ann/s3cret?to=\(elsewhere.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")")
        guard let s = await ChallengeRecorder([.useCredential(right)]).run(url) else { return }
        #expect(s.statuses == [200])
        let echoed = String(decoding: s.body, as: UTF8.self).lowercased()
        #expect(echoed.contains("host: localhost"))
        #expect(!echoed.contains("authorization"), "sent: \(echoed)")
    }

    /// A completion-handler task still asks the session's delegate.
    @Test func aCompletionHandlerTaskAsksTheSessionDelegate() async throws {
        let server = try Servers.shared()
        let recorder = ChallengeRecorder([.useCredential(right)])
        let session = Session(delegate: recorder, delegateQueue: recorder.queue)
        defer { session.finishTasksAndInvalidate() }
        let body = Locked<Data?>(nil)
        session.dataTask(with: server.url("/digest-auth/ann/s3cret")) { data, _, _ in body.withLock { $0 = data ?? Data() } }.resume()
        #expect(await eventually { body.withLock { $0 } != nil })
        #expect(body.withLock { $0 } == Data("authenticated ann\n".utf8))
        #expect(recorder.snapshot.challenges.count == 1)
    }
}

@Suite struct AsyncTaskDelegateTests {
    /// The async calls take a task delegate: it answers this task's challenge and hears its metrics, before the
    /// session's delegate would (here the session has a delegate that would refuse).
    @Test func anAsyncCallsDelegateAnswersItsTasksChallenge() async throws {
        let server = try Servers.shared()
        let own = ChallengeRecorder([.useCredential(right)])
        let sessionDelegate = ChallengeRecorder([.rejectProtectionSpace])
        let session = Session(delegate: sessionDelegate, delegateQueue: sessionDelegate.queue)
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.data(from: server.url("/digest-auth/ann/s3cret"), delegate: own)
        #expect(response.statusCode == 200)
        #expect(data == Data("authenticated ann\n".utf8))
        #expect(own.snapshot.challenges.count == 1)
        #expect(sessionDelegate.snapshot.challenges.isEmpty)
        let (bytes, streamed) = try await session.bytes(from: server.url("/basic-auth/ann/s3cret"), delegate: own)
        #expect(streamed.statusCode == 200)
        var count = 0
        for try await _ in bytes { count += 1 }
        #expect(count == "authenticated ann\n".utf8.count)
        #expect(own.snapshot.challenges.count == 2)
    }
}

@Suite struct AuthenticateHeaderTests {
    @Test func theStrongestSchemeAndItsRealm() {
        let found = AuthenticateHeader.strongest(["Basic realm=\"a\", Digest realm=\"b, c\", qop=\"auth\", nonce=\"x\""])
        #expect(found?.method == .digest)
        #expect(found?.realm == "b, c")
        #expect(AuthenticateHeader.strongest(["Basic realm=\"x\\\"y\""])?.realm == "x\"y")
        #expect(AuthenticateHeader.strongest(["Bearer", "Negotiate"])?.method == .bearer)
        #expect(AuthenticateHeader.strongest(["NTLM"])?.method == .other)
        #expect(AuthenticateHeader.strongest([""]) == nil)
    }
}
