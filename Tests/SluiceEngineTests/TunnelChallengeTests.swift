// A proxy's 407 to CONNECT (https through tinyproxy with BasicAuth) is a didReceive challenge for the proxy's
// protection space, and a credential given in answer opens the tunnel; curl's --proxy-digest and --proxy-anyauth
// send nothing before the proxy asks.
import Foundation
@testable import SluiceEngine
import Testing

@Suite struct TunnelChallengeTests {
    func throughAuthProxy(_ servers: ThirdPartyServers, username: String? = nil, password: String? = nil,
                          method: AuthenticationMethod = .basic) -> SessionConfiguration {
        var configuration = trustingTestCA(servers)
        var proxy = ProxyServer(kind: .http, host: "127.0.0.1", port: servers.authProxyPort, username: username, password: password)
        proxy.authenticationMethod = method
        configuration.proxy = .server(proxy)
        configuration.credentialStorage = CredentialStorage()  // not the shared one other tests write to
        return configuration
    }

    @Test func aRefusedTunnelIsAProxyChallengeAndACredentialOpensIt() async throws {
        let servers = try await ThirdPartyServers.shared()
        let recorder = ChallengeRecorder([.useCredential(Credential(user: ThirdPartyServers.proxyUser,
                                                                    password: ThirdPartyServers.proxyPassword))])
        let log = EventLog()
        let state = try #require(await recorder.run(servers.https(servers.tlsPort, "/small/f1"),
                                                    configuration: throughAuthProxy(servers), log: log))
        #expect(state.error == nil, "\(String(describing: state.error))")
        #expect(state.statuses == [200] && state.body.count == 1024)
        try #require(state.challenges.count == 1)
        let challenge = state.challenges[0]
        #expect(challenge.protectionSpace == ProtectionSpace(host: "127.0.0.1", port: servers.authProxyPort, protocol: "http",
                                                             realm: nil, authenticationMethod: .basic, isProxy: true))
        #expect(challenge.previousFailureCount == 0 && challenge.proposedCredential == nil)
        #expect(challenge.failureResponse == nil, "CONNECT's 407 is not the task's response")
        #expect(challenge.error?.message.contains("407") == true, "\(String(describing: challenge.error))")
        #expect(log.names.contains("didReceiveChallenge"))
    }

    @Test func defaultHandlingFindsTheStoredProxyCredential() async throws {
        let servers = try await ThirdPartyServers.shared()
        let configuration = throughAuthProxy(servers)
        let space = ProtectionSpace(host: "127.0.0.1", port: servers.authProxyPort, protocol: "http", realm: nil,
                                    authenticationMethod: .basic, isProxy: true)
        configuration.credentialStorage?.set(Credential(user: ThirdPartyServers.proxyUser, password: ThirdPartyServers.proxyPassword),
                                             for: space)
        let state = try #require(await ChallengeRecorder([.performDefaultHandling])
            .run(servers.https(servers.tlsPort, "/small/f1"), configuration: configuration))
        #expect(state.error == nil && state.statuses == [200], "\(String(describing: state.error))")
    }

    @Test(arguments: [ChallengeDisposition.rejectProtectionSpace, .performDefaultHandling, .cancelAuthenticationChallenge])
    func withoutACredentialTheTaskFails(_ answer: ChallengeDisposition) async throws {
        let servers = try await ThirdPartyServers.shared()
        let state = try #require(await ChallengeRecorder([answer])
            .run(servers.https(servers.tlsPort, "/small/f1"), configuration: throughAuthProxy(servers)))
        #expect(state.challenges.count == 1)
        #expect(state.statuses.isEmpty, "no response reaches the task")
        let expected: TransferError.Code = answer == .cancelAuthenticationChallenge ? .cancelled : .proxyAuthenticationRequired
        #expect(state.error?.code == expected, "\(String(describing: state.error))")
    }

    @Test func aWrongCredentialIsNotAskedForForever() async throws {
        let servers = try await ThirdPartyServers.shared()
        let state = try #require(await ChallengeRecorder([.useCredential(Credential(user: ThirdPartyServers.proxyUser, password: "wrong"))])
            .run(servers.https(servers.tlsPort, "/small/f1"), configuration: throughAuthProxy(servers)))
        // tinyproxy 1.11 answers a wrong password with 401, which is no challenge: the task fails with it.
        #expect(state.challenges.count == 1)
        #expect(state.error?.code == .proxyAuthenticationRequired, "\(String(describing: state.error))")
    }

    /// --proxy-anyauth: libcurl asks first, then answers the proxy's Basic challenge itself; the delegate is not asked.
    @Test(arguments: [AuthenticationMethod.other, .basic])
    func configuredCredentialsAnswerWithoutTheDelegate(_ method: AuthenticationMethod) async throws {
        let servers = try await ThirdPartyServers.shared()
        let recorder = ChallengeRecorder([.rejectProtectionSpace])
        let configuration = throughAuthProxy(servers, username: ThirdPartyServers.proxyUser, password: ThirdPartyServers.proxyPassword,
                                             method: method)
        let state = try #require(await recorder.run(servers.https(servers.tlsPort, "/small/f1"), configuration: configuration))
        #expect(state.error == nil && state.statuses == [200], "\(String(describing: state.error))")
        #expect(state.challenges.isEmpty)
    }

    /// --proxy-digest against a proxy that offers only Basic: nothing is sent, and the refusal is the delegate's.
    @Test func aDigestOnlyCredentialDoesNotAnswerBasic() async throws {
        let servers = try await ThirdPartyServers.shared()
        let configuration = throughAuthProxy(servers, username: ThirdPartyServers.proxyUser, password: ThirdPartyServers.proxyPassword,
                                             method: .digest)
        let state = try #require(await ChallengeRecorder([.rejectProtectionSpace])
            .run(servers.https(servers.tlsPort, "/small/f1"), configuration: configuration))
        #expect(state.challenges.map(\.protectionSpace.authenticationMethod) == [.basic])
        #expect(state.error?.code == .proxyAuthenticationRequired, "\(String(describing: state.error))")
    }

    @Test func theMachineAsksWithoutAResponseAndKeepsTheError() {
        let refused = TransferError(.proxyAuthenticationRequired, "CONNECT tunnel failed, response 407")
        var m = RequestStateMachine(isLocal: false)
        #expect(m.tunnelRefused(refused) == .askChallenge)
        #expect(m.challengeAnswered(resend: false, shortBody: false) == .finish(refused))
        var answered = RequestStateMachine(isLocal: false)
        _ = answered.tunnelRefused(refused)
        #expect(answered.challengeAnswered(resend: true, shortBody: false) == .resend)
        var streaming = RequestStateMachine(isLocal: false)
        _ = streaming.bodyArrived(fits: true, isMultipart: false)
        guard case .internalError = streaming.tunnelRefused(refused) else {
            Issue.record("a refused tunnel after a head is not a possible event")
            return
        }
    }

    @Test func theOfferedMethodsReadAsCurlsBits() {
        #expect(TunnelChallenge.space(connectCode: 200, offered: 1, address: "10.0.0.1", port: 3128) == nil)
        #expect(TunnelChallenge.space(connectCode: 407, offered: 0, address: "10.0.0.1", port: 3128) == nil)
        #expect(TunnelChallenge.space(connectCode: 407, offered: 3, address: "10.0.0.1", port: 3128)?.authenticationMethod == .digest)
        #expect(TunnelChallenge.strongest(1) == .basic && TunnelChallenge.strongest(8) == .other)
    }
}
