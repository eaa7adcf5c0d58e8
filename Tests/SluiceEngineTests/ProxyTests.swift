// Proxies from the configuration, through real proxy programs on 127.0.0.1: tinyproxy for HTTP (CONNECT for
// https, Basic auth and its refusal) and dante for SOCKS5 with the name resolved by the proxy.
// (The environment's *_proxy variables are process-wide, so they are tested on the binary: scripts/e2e-cli.)
import Foundation
import SluiceEngine
import Testing

@Suite struct ProxyTests {
    func through(_ proxy: ProxyServer, trusting servers: ThirdPartyServers? = nil) -> SessionConfiguration {
        var configuration = servers.map(trustingTestCA) ?? .default
        configuration.proxy = .server(proxy)
        return configuration
    }

    func text(_ result: Result<(Data, Response), TransferError>) -> String {
        (try? result.get()).map { String(decoding: $0.0, as: UTF8.self) } ?? ""
    }

    @Test func anHTTPProxyForwardsAPlainRequest() async throws {
        let servers = try await ThirdPartyServers.shared()
        let scenario = try Servers.shared()
        let proxy = ProxyServer(kind: .http, host: "127.0.0.1", port: servers.proxyPort)
        let result = await fetch(scenario.url("/headers"), through(proxy))
        #expect(try result.get().1.statusCode == 200)
        #expect(text(result).contains("tinyproxy"), "tinyproxy adds Via; the server saw: \(text(result))")
        let direct = await fetch(scenario.url("/headers"), .default)
        #expect(!text(direct).contains("tinyproxy"))
    }

    @Test func httpsGoesThroughATunnelAndTheResponseIsTheServers() async throws {
        let servers = try await ThirdPartyServers.shared()
        let token = uniqueToken()
        let proxy = ProxyServer(kind: .http, host: "127.0.0.1", port: servers.proxyPort)
        let result = await fetch(servers.https(servers.tlsPort, "/small/f2?\(token)", host: "localhost"),
                                 through(proxy, trusting: servers))
        let (body, response) = try result.get()
        #expect(response.statusCode == 200 && body.count == 1024)
        #expect(response.headers["Server"]?.hasPrefix("nginx") == true, "not the proxy's 200: \(response.headers)")
        #expect(ThirdPartyServers.read(servers.proxyLog).contains("CONNECT localhost:\(servers.tlsPort)"))
        #expect(servers.connections(for: token).count == 1)
    }

    @Test func proxyCredentialsAreSentAndARefusalSaysSo() async throws {
        let servers = try await ThirdPartyServers.shared()
        let url = servers.https(servers.tlsPort, "/small/f1")
        var proxy = ProxyServer(kind: .http, host: "127.0.0.1", port: servers.authProxyPort,
                                username: ThirdPartyServers.proxyUser, password: ThirdPartyServers.proxyPassword)
        #expect(try await fetch(url, through(proxy, trusting: servers)).get().1.statusCode == 200)

        for password in [nil, "wrong"] {
            proxy.password = password
            proxy.username = password.map { _ in ThirdPartyServers.proxyUser }
            guard case .failure(let error) = await fetch(url, through(proxy, trusting: servers)) else {
                Issue.record("the proxy let a request without its password through")
                continue
            }
            #expect(error.code == .proxyAuthenticationRequired, "\(error)")
            // tinyproxy 1.11 answers a missing password with 407 and a wrong one with 401.
            #expect(error.message.contains(password == nil ? "response 407" : "response 401"), "\(error)")
        }
    }

    @Test func aPlainRequestToARefusingProxyGetsTheProxysAnswer() async throws {
        let servers = try await ThirdPartyServers.shared()
        let scenario = try Servers.shared()
        let proxy = ProxyServer(kind: .http, host: "127.0.0.1", port: servers.authProxyPort)
        let (_, response) = try await fetch(scenario.url("/headers"), through(proxy)).get()
        #expect(response.statusCode == 407)
        #expect(response.headers["Proxy-Authenticate"]?.hasPrefix("Basic") == true)
    }

    /// dante logs each request's address as the client sent it: "ATYP: 3 address: localhost.PORT" for a name,
    /// "ATYP: 1 address: 127.0.0.1.PORT" for an address resolved here.
    @Test func socks5hLeavesTheNameToTheProxy() async throws {
        let servers = try await ThirdPartyServers.shared()
        let url = servers.https(servers.tlsPort, "/small/f4", host: "localhost")
        let asName = "ATYP: 3 address: localhost.\(servers.tlsPort) "
        let asAddress = "ATYP: 1 address: 127.0.0.1.\(servers.tlsPort) "
        func count(_ text: String) -> Int { ThirdPartyServers.read(servers.socksLog).components(separatedBy: text).count - 1 }

        let before = (count(asName), count(asAddress))
        var socks = ProxyServer(kind: .socks5h, host: "127.0.0.1", port: servers.socksPort)
        #expect(try await fetch(url, through(socks, trusting: servers)).get().1.statusCode == 200)
        #expect(count(asName) == before.0 + 1 && count(asAddress) == before.1, "the proxy was sent the name")

        socks.kind = .socks5
        #expect(try await fetch(url, through(socks, trusting: servers)).get().1.statusCode == 200)
        #expect(count(asName) == before.0 + 1 && count(asAddress) == before.1 + 1, "the proxy was sent an address")
    }

    @Test func theBypassListGoesDirect() async throws {
        let servers = try await ThirdPartyServers.shared()
        let scenario = try Servers.shared()
        var configuration = through(ProxyServer(kind: .http, host: "127.0.0.1", port: servers.proxyPort))
        configuration.proxyBypass = "localhost,127.0.0.1"
        let result = await fetch(scenario.url("/headers"), configuration)
        #expect(try result.get().1.statusCode == 200)
        #expect(!text(result).contains("tinyproxy"), "went through the proxy: \(text(result))")
    }

    @Test func aProxyThatIsNotThereIsACannotConnect() async throws {
        let scenario = try Servers.shared()
        let result = await fetch(scenario.url("/bytes/1"), through(ProxyServer(kind: .http, host: "127.0.0.1", port: 9)))
        guard case .failure(let error) = result else { Issue.record("fetched through a proxy that is not there"); return }
        #expect(error.code == .cannotConnectToHost, "\(error)")
    }
}

@Suite struct ProxyServerParsingTests {
    @Test func curlsSyntaxIsRead() {
        #expect(ProxyServer(url: "127.0.0.1:3128") == ProxyServer(kind: .http, host: "127.0.0.1", port: 3128))
        #expect(ProxyServer(url: "proxy.example") == ProxyServer(kind: .http, host: "proxy.example", port: 1080))
        #expect(ProxyServer(url: "https://proxy.example") == ProxyServer(kind: .https, host: "proxy.example", port: 443))
        #expect(ProxyServer(url: "SOCKS5H://[::1]:1080/") == ProxyServer(kind: .socks5h, host: "::1", port: 1080))
        #expect(ProxyServer(url: "http://al%40ce:p%3Ass@h:8080") ==
                ProxyServer(kind: .http, host: "h", port: 8080, username: "al@ce", password: "p:ss"))
        #expect(ProxyServer(url: "http://user@h:1") == ProxyServer(kind: .http, host: "h", port: 1, username: "user"))
        #expect(ProxyServer(url: "ftp://h:1") == nil)
        #expect(ProxyServer(url: "http://h:99999") == nil)
        #expect(ProxyServer(url: "http://:8080") == nil)
        #expect(ProxyServer(url: "[::1") == nil)
    }
}
