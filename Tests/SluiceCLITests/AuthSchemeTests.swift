// curl's --digest, --anyauth and --basic on `sluice get -u`, against the scenario server's /digest-auth,
// /basic-auth and /headers: with --digest or --anyauth nothing is sent before the 401, a wrong password ends as
// curl -f ends (exit 22), and the credential never follows a redirect to another origin.
import Foundation
import SluiceEngine
import SluiceScenarioServer
import Testing
@testable import SluiceCLI

@Suite struct AuthSchemeTests {
    /// `sluice get ARGS -o DIR/out`: the failure (nil on success) and what was saved.
    func get(_ arguments: [String]) async throws -> (CLIFailure?, String) {
        let dir = try Scratch()
        defer { dir.remove() }
        let failure = await runGet(arguments + ["-o", dir.path + "/out"])
        return (failure, (try? String(contentsOfFile: dir.path + "/out", encoding: .utf8)) ?? "")
    }

    @Test(arguments: [["--digest"], ["--anyauth"], ["--basic", "--digest"]])
    func digestIsAnsweredToTheChallenge(_ flags: [String]) async throws {
        let server = try CLIServers.shared()
        let path = "/digest-auth/ann/s3cret?\(UUID().uuidString)"
        let (failure, body) = try await get([server.url(path).absoluteString, "-u", "ann:s3cret"] + flags)
        #expect(failure == nil, "\(failure?.message ?? "")")
        #expect(body == "authenticated ann\n")
        #expect(server.requestCount(path) >= 2, "the first request carries nothing and is refused")
    }

    @Test(arguments: ["--digest", "--anyauth"])
    func nothingIsSentBeforeTheServerAsks(_ flag: String) async throws {
        let server = try CLIServers.shared()
        let (failure, headers) = try await get([server.url("/headers").absoluteString, "-u", "ann:s3cret", flag])
        #expect(failure == nil, "\(failure?.message ?? "")")
        #expect(!headers.contains("Authorization"), "\(headers)")
        let (_, basic) = try await get([server.url("/headers").absoluteString, "-u", "ann:s3cret", flag, "--basic"])
        #expect(basic.contains("Authorization: Basic YW5uOnMzY3JldA==\n"), "the last of the flags wins: \(basic)")
    }

    @Test func anyauthAnswersBasicAndDigestDoesNot() async throws {
        let server = try CLIServers.shared()
        let path = "/basic-auth/ann/s3cret?\(UUID().uuidString)"
        let (failure, body) = try await get([server.url(path).absoluteString, "-u", "ann:s3cret", "--anyauth"])
        #expect(failure == nil && body == "authenticated ann\n", "\(failure?.message ?? "")")
        #expect(server.requestCount(path) == 2)
        let (refused, _) = try await get([server.url(path).absoluteString, "-u", "ann:s3cret", "--digest"])
        #expect(refused?.code == 22, "curl --digest sends no Basic: \(refused?.message ?? "")")
    }

    @Test(arguments: ["--digest", "--anyauth"])
    func aWrongPasswordEndsAsCurlFails(_ flag: String) async throws {
        let server = try CLIServers.shared()
        let url = server.url("/digest-auth/ann/s3cret")
        let (failure, _) = try await get([url.absoluteString, "-u", "ann:guess", flag])
        #expect(failure?.code == 22)
        #expect(failure?.message == "the server answered 401 for \(url.absoluteString)")
    }

    @Test func theCredentialStaysWithItsOrigin() async throws {
        let server = try CLIServers.shared()
        let elsewhere = "http://localhost:\(server.port)/headers"
        let url = server.url("/digest-auth/ann/s3cret?to=\(elsewhere.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")")
        let (failure, headers) = try await get([url.absoluteString, "-u", "ann:s3cret", "--digest"])
        #expect(failure == nil, "\(failure?.message ?? "")")
        #expect(headers.contains("Host: localhost"), "the redirect was followed: \(headers)")
        #expect(!headers.contains("Authorization"), "\(headers)")
    }

    @Test func proxyFlagsChooseHowLibcurlAnswers() throws {
        func method(_ flags: [String]) throws -> AuthenticationMethod? {
            let prepared = try RequestOptions.parse(["-x", "http://u:p@127.0.0.1:3128"] + flags).prepare(askPassword: { _ in nil })
            guard case .server(let proxy) = prepared.configuration.proxy else { return nil }
            return proxy.authenticationMethod
        }
        #expect(try method([]) == .basic)
        #expect(try method(["--proxy-digest"]) == .digest)
        #expect(try method(["--proxy-anyauth"]) == .other)
        #expect(try method(["--proxy-anyauth", "--proxy-basic"]) == .basic)
    }
}
