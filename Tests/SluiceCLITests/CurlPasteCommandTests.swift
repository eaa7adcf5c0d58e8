// `sluice get --curl 'CMD'` and URL globbing end to end against the scenario server, and curl's own run of a glob.
import Foundation
import SluiceEngine
import SluiceScenarioServer
import SluiceViewModel
import Testing
@testable import SluiceCLI

@Suite struct CurlPasteCommandTests {
    /// What `sluice get ARGUMENTS` would send, prepared as the command prepares it, and the server's answer.
    func send(_ arguments: [String], to path: String) async throws -> (String, Response) {
        var command = try GetCommand.parse(arguments)
        if let paste = try command.curlPaste.read() { command.take(paste) }
        var prepared = try command.requestOptions.prepare(shortData: command.shortData.values, askPassword: { _ in nil })
        let paste = try command.curlPaste.read()
        paste?.fillBody(&prepared, methodGiven: command.requestOptions.method != nil)
        let server = try CLIServers.shared()
        let session = Session(configuration: try prepared.configure(.default))
        defer { session.finishTasksAndInvalidate() }
        let (body, response) = try await session.data(for: prepared.request(for: server.url(path)))
        return (String(decoding: body, as: UTF8.self), response)
    }

    /// A Chrome-style paste aimed at the scenario server.
    func chromePaste(_ url: URL) -> String {
        """
        curl '\(url.absoluteString)' \\
          -H 'accept: application/json, text/plain, */*' \\
          -H 'content-type: application/json' \\
          -b 'sid=s%3AQ2x1Yk9.abc123; theme=dark' \\
          -H 'Accept-Encoding: gzip, deflate, br, zstd, made-up' \\
          -H 'user-agent: Mozilla/5.0 (X11; Linux x86_64) Chrome/124.0.0.0 Safari/537.36' \\
          --connect-timeout 5 \\
          --data-raw $'{"note":"it\\'s a gift\\u0021\\nwrap it","qty":2}'
        """
    }

    @Test func headersCookiesAndBodyArrive() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let failure = await runGet(["--curl", chromePaste(server.url("/headers")), "-o", dir.path + "/headers.out"])
        #expect(failure == nil, "\(failure?.message ?? "")")
        let seen = try String(contentsOfFile: dir.path + "/headers.out", encoding: .utf8)
        #expect(seen.contains("accept: application/json, text/plain, */*\n"))
        #expect(seen.contains("content-type: application/json\n"), "the paste's Content-Type, not -d's default")
        #expect(!seen.contains("x-www-form-urlencoded"))
        #expect(seen.contains("Cookie: sid=s%3AQ2x1Yk9.abc123; theme=dark\n"))
        #expect(seen.contains("user-agent: Mozilla/5.0 (X11; Linux x86_64) Chrome/124.0.0.0 Safari/537.36\n"))
        #expect(!seen.contains("made-up"), "libcurl's own Accept-Encoding, not the browser's: \(seen)")
        #expect(seen.contains("Content-Length: 39\n"))

        let echoed = await runGet(["--curl", chromePaste(server.url("/echo")), "-o", dir.path + "/echo.out"])
        #expect(echoed == nil, "\(echoed?.message ?? "")")
        #expect(try String(contentsOfFile: dir.path + "/echo.out", encoding: .utf8) == "{\"note\":\"it's a gift!\nwrap it\",\"qty\":2}")
    }

    @Test func theMethodArrivesAndTypedFlagsWin() async throws {
        let paste = "curl 'http://example.invalid/ignored' -X PUT -H 'X-A: paste' -H 'X-B: paste' -b 'c=paste' --data-raw 'from paste'"
        let (body, response) = try await send(["--curl", paste], to: "/echo")
        #expect(response.headers["X-Request-Method"] == "PUT" && body == "from paste")
        let (posted, postResponse) = try await send(["--curl", "curl http://h/ --data-raw x=1"], to: "/echo")
        #expect(postResponse.headers["X-Request-Method"] == "POST" && posted == "x=1", "a body means POST, as curl")

        let typed = ["--curl", paste, "-X", "PATCH", "-H", "X-B: typed", "-b", "c=typed", "-d", "typed body"]
        let (typedBody, typedResponse) = try await send(typed, to: "/echo")
        #expect(typedResponse.headers["X-Request-Method"] == "PATCH" && typedBody == "typed body")
        let (headers, _) = try await send(typed, to: "/headers")
        #expect(headers.contains("X-A: paste\n") && headers.contains("X-B: typed\n") && !headers.contains("X-B: paste"))
        #expect(headers.contains("Cookie: c=typed\n") && !headers.contains("c=paste"))

        var command = try GetCommand.parse(["--curl", "curl http://a/ -o paste.out -u bob:pw", "http://typed/", "-o", "typed.out"])
        if let parsed = try command.curlPaste.read() { command.take(parsed) }
        #expect(command.urls == ["http://typed/"] && command.output == "typed.out" && command.requestOptions.user == "bob:pw")
    }

    @Test func refusalsAreUsageErrors() async {
        let failure = await runGet(["--curl", "curl -d @/etc/passwd http://127.0.0.1:1/"])
        #expect(failure?.code == 2 && failure?.message.contains("reads a local file") == true, "\(failure?.message ?? "")")
        let windows = await runGet(["--curl", #"curl ^"http://127.0.0.1:1/^""#])
        #expect(windows?.code == 2 && windows?.message.contains("Windows cmd quoting") == true)
    }

    @Test func globbedURLsGetTheirOwnFilesAsCurlNamesThem() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let tag = "glob-\(UInt32.random(in: 0...UInt32.max))"
        let pattern = server.url("/bytes/").absoluteString + "{3,5}?tag=\(tag)-[1-2]"
        let failure = await runGet([pattern, "-o", dir.path + "/f#1_#2"])
        #expect(failure == nil, "\(failure?.message ?? "")")
        #expect(dir.entries == ["f3_1", "f3_2", "f5_1", "f5_2"])
        #expect((try? Data(contentsOf: URL(fileURLWithPath: dir.path + "/f5_2")))?.count == 5)
        let order = server.requestOrder(containing: tag)
        #expect(order == ["/bytes/3?tag=\(tag)-1", "/bytes/3?tag=\(tag)-2", "/bytes/5?tag=\(tag)-1", "/bytes/5?tag=\(tag)-2"])

        // curl itself, on the same pattern with another tag: the same requests in the same order, the same names.
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/curl") else { return }
        let curlDir = try Scratch()
        defer { curlDir.remove() }
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        curl.arguments = ["-s", pattern.replacingOccurrences(of: tag, with: tag + "c"), "-o", curlDir.path + "/f#1_#2"]
        try curl.run()
        await offThePool { curl.waitUntilExit() }
        #expect(curl.terminationStatus == 0)
        #expect(curlDir.entries == dir.entries)
        #expect(server.requestOrder(containing: tag + "c") == order.map { $0.replacingOccurrences(of: tag, with: tag + "c") })
    }

    @Test func globOffAndGlobErrors() async throws {
        let server = try CLIServers.shared()
        let tag = "globoff-\(UInt32.random(in: 0...UInt32.max))"
        let dir = try Scratch()
        defer { dir.remove() }
        let failure = await runGet(["-g", server.url("/bytes/2").absoluteString + "?tag=\(tag)-{a,b}", "-o", dir.path + "/out"])
        #expect(failure == nil, "\(failure?.message ?? "")")
        #expect(server.requestOrder(containing: tag).count == 1, "one URL, braces and all: \(server.requestOrder(containing: tag))")
        let bad = await runGet([server.url("/bytes/2").absoluteString + "?x=[3-1]"])
        #expect(bad?.code == 2 && bad?.message.hasPrefix("bad range in URL position") == true, "\(bad?.message ?? "")")
        let several = await runGet([server.url("/bytes/2").absoluteString + "?x=[1-2]", "-o", dir.path + "/one"])
        #expect(several?.message.contains("-o takes one URL") == true, "-o without #N for several URLs is refused")
    }
}
