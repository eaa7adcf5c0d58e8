// The one line a failed transfer prints: a proxy that cannot be reached is named as the proxy, not as the server.
import Foundation
import SluiceEngine
import Testing
@testable import SluiceCLI

@Suite struct ErrorTextTests {
    let url = URL(string: "http://127.0.0.1:18199/bytes/1000")!

    @Test func aDeadProxyIsNamedAsTheProxy() {
        let error = TransferError(.cannotConnectToHost, "Failed to connect to localhost port 18299 after 0 ms: Couldn't connect to server")
        #expect(ErrorText.describe(error, url: url)
                == "cannot connect to the proxy localhost:18299 (for 127.0.0.1:18199): Failed to connect to localhost port 18299 after 0 ms: Couldn't connect to server")
    }

    @Test func aDeadServerIsNamedAsTheServer() {
        let error = TransferError(.cannotConnectToHost, "Failed to connect to 127.0.0.1 port 18199 after 0 ms: Couldn't connect to server")
        #expect(ErrorText.describe(error, url: url).hasPrefix("cannot connect to 127.0.0.1:18199: Failed"))
        let https = URL(string: "https://example.org/x")!
        let onDefaultPort = TransferError(.cannotConnectToHost, "Failed to connect to example.org port 443 after 3 ms: Connection refused")
        #expect(ErrorText.describe(onDefaultPort, url: https).hasPrefix("cannot connect to example.org: Failed"))
        #expect(ErrorText.connectTarget("Couldn't connect to server") == nil, "another wording: the server, as before")
    }

    /// Found by a tester: after a redirect to a port nobody listens on, the message named the first host, as a
    /// proxy ("cannot connect to the proxy 127.0.0.1:1 (for 127.0.0.1:PORT)"). The place is the URL that failed.
    @Test func aRedirectsTargetIsNamedAsTheServer() async throws {
        let server = try CLIServers.shared()
        let start = server.url("/redirect/1?to=http://127.0.0.1:1/x")
        let session = Session(configuration: .default, delegate: nil)
        defer { session.invalidateAndCancel() }
        do {
            _ = try await session.data(from: start)
            Issue.record("nothing listens on port 1")
        } catch {
            let text = ErrorText.describe(error, url: start)
            #expect(text.hasPrefix("cannot connect to 127.0.0.1:1: "), "\(text)")
            #expect(!text.contains("proxy"))
        }
    }
}

