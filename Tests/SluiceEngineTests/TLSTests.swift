// HTTPS against nginx on 127.0.0.1 with certificates made at test time: a CA file is trusted, the system's store
// is the default, and each refused certificate says why (expired, another host, unknown authority, self-signed).
import Foundation
@testable import SluiceEngine
import Testing

@Suite struct TLSTests {
    func failure(_ result: Result<(Data, Response), TransferError>) -> TransferError? {
        if case .failure(let error) = result { error } else { nil }
    }

    @Test func theConfiguredCAFileIsTrusted() async throws {
        let servers = try await ThirdPartyServers.shared()
        for host in ["127.0.0.1", "localhost"] {  // the certificate names both
            let url = servers.https(servers.tlsPort, "/small/f3", host: host)
            let result = await fetch(url, trustingTestCA(servers))
            let (body, response) = try result.get()
            #expect(response.statusCode == 200)
            #expect(body == (try Data(contentsOf: URL(fileURLWithPath: servers.directory + "/www/small/f3"))))
        }
    }

    @Test func withoutACAFileTheSystemStoreDecidesAndDoesNotKnowTheTestCA() async throws {
        let servers = try await ThirdPartyServers.shared()
        let error = failure(await fetch(servers.https(servers.tlsPort, "/small/f1"), .default))
        #expect(error?.code == .serverCertificateUntrusted)
        #expect(error?.certificateProblem == .untrustedIssuer, "\(String(describing: error))")
    }

    @Test(arguments: [CertificateProblem.expired, .hostMismatch, .selfSigned])
    func aRefusedCertificateNamesTheReason(reason: CertificateProblem) async throws {
        let servers = try await ThirdPartyServers.shared()
        let port = switch reason {
        case .expired: servers.expiredPort
        case .hostMismatch: servers.wrongHostPort
        default: servers.selfSignedPort
        }
        let url = servers.https(port, "/small/f1")
        let error = failure(await fetch(url, trustingTestCA(servers)))
        #expect(error?.code == .serverCertificateUntrusted)
        #expect(error?.certificateProblem == reason, "\(String(describing: error))")
        #expect(error?.failingURL == url)
    }

    /// A certificate that does not verify is a server-trust challenge: the delegate may accept it (for that host
    /// and port) or not (the verification error stands, which is also the default).
    @Test func aServerTrustChallengeAcceptsOrRefusesTheCertificate() async throws {
        let servers = try await ThirdPartyServers.shared()
        let url = servers.https(servers.selfSignedPort, "/small/f1")
        let accepting = ChallengeRecorder([.useCredential(.serverTrust)])
        guard let accepted = await accepting.run(url) else { return }
        #expect(accepted.error == nil)
        #expect(accepted.statuses == [200])
        #expect(accepted.challenges.first?.protectionSpace.authenticationMethod == .serverTrust)
        #expect(accepted.challenges.first?.error?.certificateProblem == .selfSigned)
        for answer in [ChallengeDisposition.performDefaultHandling, .rejectProtectionSpace, .useCredential(Credential(user: "a", password: "b"))] {
            guard let refused = await ChallengeRecorder([answer]).run(url) else { return }
            #expect(refused.error?.code == .serverCertificateUntrusted, "after \(answer)")
            #expect(refused.statuses.isEmpty)
        }
    }

    @Test func insecureModeAcceptsEveryRefusedCertificate() async throws {
        let servers = try await ThirdPartyServers.shared()
        var configuration = SessionConfiguration.default
        configuration.tlsVerificationEnabled = false
        for port in [servers.expiredPort, servers.wrongHostPort, servers.selfSignedPort, servers.tlsPort] {
            let result = await fetch(servers.https(port, "/small/f1"), configuration)
            #expect(try result.get().1.statusCode == 200)
        }
    }

    @Test func aMissingCAFileIsATLSSetupFailure() async throws {
        let servers = try await ThirdPartyServers.shared()
        var configuration = SessionConfiguration.default
        configuration.caFile = servers.directory + "/no-such-ca.pem"
        let error = failure(await fetch(servers.https(servers.tlsPort, "/small/f1"), configuration))
        #expect(error?.code == .secureConnectionFailed, "\(String(describing: error))")
        #expect(error?.message.contains("no-such-ca.pem") == true, "\(String(describing: error))")
    }

    @Test func theMetricsShowTheHandshake() async throws {
        let servers = try await ThirdPartyServers.shared()
        let results = await runTogether([servers.https(servers.tlsPort, "/small/f1")], configuration: trustingTestCA(servers))
        let transaction = results.first?.metrics?.transactions.first
        #expect(transaction?.secureConnectionEnd.map { $0 > 0 } == true)
        #expect(transaction?.networkProtocol == "h2")
    }
}

@Suite struct CertificateProblemTests {
    @Test func librariesWordingsAreRead() {
        let cases: [(String, CertificateProblem)] = [
            ("SSL certificate problem: certificate has expired", .expired),
            ("SSL certificate problem: certificate is not yet valid", .notYetValid),
            ("SSL: no alternative certificate subject name matches target host name '127.0.0.1'", .hostMismatch),
            ("SSL: certificate subject name 'a.example' does not match target host name 'b.example'", .hostMismatch),
            ("SSL certificate problem: unable to get local issuer certificate", .untrustedIssuer),
            ("SSL certificate problem: self-signed certificate in certificate chain", .untrustedIssuer),
            ("SSL certificate problem: self signed certificate in certificate chain", .untrustedIssuer),
            ("SSL certificate problem: unable to verify the first certificate", .untrustedIssuer),
            ("SSL certificate problem: self-signed certificate", .selfSigned),
            ("SSL certificate problem: self signed certificate", .selfSigned),
            ("SSL certificate problem: certificate revoked", .revoked),
            ("server certificate verification failed. CAfile: x CRLfile: none", .other),
        ]
        for (message, expected) in cases {
            let error = TransferError(.serverCertificateUntrusted, message)
            #expect(error.certificateProblem == expected, "\(message)")
        }
        #expect(TransferError(.timedOut, "certificate has expired").certificateProblem == nil)
    }

    @Test func proxyRefusalsAreTheirOwnCode() {
        #expect(CurlErrorMapping.code(forCurlCode: 56, message: "CONNECT tunnel failed, response 407") == .proxyAuthenticationRequired)
        #expect(CurlErrorMapping.code(forCurlCode: 56, message: "CONNECT tunnel failed, response 401") == .proxyAuthenticationRequired)
        #expect(CurlErrorMapping.code(forCurlCode: 56, message: "CONNECT tunnel failed, response 403") == .cannotConnectToHost)
        #expect(CurlErrorMapping.code(forCurlCode: 56, message: "Recv failure: Connection reset by peer") == .networkConnectionLost)
        #expect(CurlErrorMapping.code(forCurlCode: 97, message: "User was rejected by the SOCKS5 server (1 1).") == .proxyAuthenticationRequired)
        #expect(CurlErrorMapping.code(forCurlCode: 97, message: "Can't complete SOCKS5 connection to x.invalid. (4)") == .cannotConnectToHost)
    }
}
