// curl's request flags on `sluice get` and `sluice put`: what each one puts in the request, checked against the
// scenario server's /headers and /echo, and the refusals, the netrc file and the no-echo password prompt.
import Dispatch
import Foundation
import SluiceEngine
import SluiceScenarioServer
import ArgumentParser
import SluiceLock
import Testing
@testable import SluiceCLI

/// The request flags as `get` takes them: RequestOptions with curl's short -d.
struct GetRequestFlags: ParsableArguments {
    @OptionGroup var request: RequestOptions
    @OptionGroup var shortData: ShortDataOption

    func prepare(takesBody: Bool = true, askPassword: (String) -> String? = { _ in nil }) throws -> PreparedRequest {
        try request.prepare(takesBody: takesBody, shortData: shortData.values, askPassword: askPassword)
    }
}

@Suite struct RequestOptionsTests {
    func prepared(_ arguments: [String], askPassword: (String) -> String? = { _ in nil }) throws -> PreparedRequest {
        try GetRequestFlags.parse(arguments).prepare(askPassword: askPassword)
    }

    func refusal(_ arguments: [String]) -> String? {
        do {
            _ = try GetRequestFlags.parse(arguments).prepare()
            return nil
        } catch let failure as CLIFailure {
            return failure.message
        } catch {
            return "\(error)"
        }
    }

    /// The server's answer to the request the flags make.
    func send(_ prepared: PreparedRequest, to url: URL) async throws -> (String, Response) {
        let session = Session(configuration: try prepared.configure(.default))
        defer { session.finishTasksAndInvalidate() }
        let (body, response) = try await session.data(for: prepared.request(for: url))
        return (String(decoding: body, as: UTF8.self), response)
    }

    /// curl's -A and -e reach the server; an -H of the same name wins, and "Name:" removes it.
    /// Found by a tester: `--timeout nan` crashed, and `--timeout -5` or 0 silently meant "never".
    @Test func theInactivityTimeoutIsANumberOfSecondsMoreThanZero() async throws {
        #expect(try RequestOptions.inactivityTimeout(nil) == nil)
        #expect(try RequestOptions.inactivityTimeout(2.5) == 2.5)
        for bad in [Double.nan, -5, 0, .infinity] {
            #expect(throws: CLIFailure.self) { try RequestOptions.inactivityTimeout(bad) }
        }
        let refused = await runGet(["--timeout", "nan", "http://127.0.0.1:9/"])
        #expect(refused?.code == 2 && refused?.message.hasPrefix("--timeout needs a number of seconds") == true, "\(String(describing: refused))")
    }

    @Test func userAgentAndRefererAreSentAndHeadersWin() async throws {
        let server = try CLIServers.shared()
        let (headers, _) = try await send(try prepared(["-A", "sluice-test/1", "-e", "https://from.example/page;auto",
                                                        "--compressed"]), to: server.url("/headers"))
        #expect(headers.contains("User-Agent: sluice-test/1\n"), "\(headers)")
        #expect(headers.contains("Referer: https://from.example/page\n"), "curl's ;auto is not sent: \(headers)")
        let typed = try prepared(["-A", "a", "-H", "user-agent: b", "-e", "r", "-H", "Referer:"])
        #expect(typed.headers["User-Agent"] == "b")
        #expect(typed.headers["Referer"] == "")
        let (removed, _) = try await send(typed, to: server.url("/headers"))
        #expect(!removed.contains("Referer"), "\(removed)")
        #expect(refusal(["-A", "a\nX-Evil: 1"]) == "-A User-Agent: a value cannot hold a line break")
    }

    @Test func headersMethodAndAFileBodyReachTheServer() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        try "a=1\r\nb=2\n".write(toFile: dir.path + "/form", atomically: true, encoding: .utf8)
        let flags = ["-H", "X-Thing: y", "-H", "X-Other:  spaced value ", "-H", "User-Agent:", "-X", "PUT", "-d", "@" + dir.path + "/form"]
        let (echoed, response) = try await send(try prepared(flags), to: server.url("/echo"))
        #expect(response.headers["X-Request-Method"] == "PUT")
        #expect(echoed == "a=1b=2", "-d @FILE drops line breaks, as curl")
        let (headers, _) = try await send(try prepared(flags), to: server.url("/headers"))
        #expect(headers.contains("X-Thing: y\n"))
        #expect(headers.contains("X-Other: spaced value\n"))
        #expect(headers.contains("Content-Type: application/x-www-form-urlencoded\n"))
        #expect(!headers.lowercased().contains("user-agent"), "'Name:' removes a header: \(headers)")
    }

    @Test func theCommandItselfSendsThem() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        try "line one\nline two\n".write(toFile: dir.path + "/body", atomically: true, encoding: .utf8)
        let failure = await runGet([server.url("/echo").absoluteString, "-X", "PUT", "--data-binary", "@" + dir.path + "/body",
                              "-o", dir.path + "/echo.out"])
        #expect(failure == nil, "\(failure?.message ?? "")")
        #expect(try String(contentsOfFile: dir.path + "/echo.out", encoding: .utf8) == "line one\nline two\n")
        let headersFailure = await runGet([server.url("/headers").absoluteString, "-H", "X-From-Get: 1", "-u", "alice:s3cret",
                                     "-b", "a=1; b=2", "-o", dir.path + "/headers.out"])
        #expect(headersFailure == nil, "\(headersFailure?.message ?? "")")
        let seen = try String(contentsOfFile: dir.path + "/headers.out", encoding: .utf8)
        #expect(seen.contains("X-From-Get: 1\n"))
        #expect(seen.contains("Authorization: Basic YWxpY2U6czNjcmV0\n"))
        #expect(seen.contains("Cookie: a=1; b=2\n"))
    }

    @Test func dataMeansPOSTUnlessAMethodIsGiven() throws {
        let post = try prepared(["-d", "a=1", "-d", "b=2"])
        #expect(post.method == "POST" && post.body == Data("a=1&b=2".utf8))
        let typed = try prepared(["-d", "{}", "-H", "Content-Type: application/json"])
        #expect(typed.request(for: URL(string: "http://h/")!).headers["Content-Type"] == "application/json")
        #expect(try prepared(["-X", "DELETE"]).method == "DELETE")
        #expect(try prepared([]).method == "GET")
    }

    @Test func credentialsAreAskedForWhenOnlyAUserIsGiven() throws {
        let asked = Locked<[String]>([])
        let withPassword = try prepared(["-u", "alice"]) { prompt in
            asked.withLock { $0.append(prompt) }
            return "from terminal"
        }
        #expect(asked.withLock { $0 } == ["Enter host password for user 'alice':"])
        let header = withPassword.request(for: URL(string: "http://h/")!).headers["Authorization"]
        #expect(header == "Basic " + Data("alice:from terminal".utf8).base64EncodedString())
        #expect(refusal(["-u", "alice"])?.contains("no terminal") == true)
        #expect(try prepared(["-u", "alice:"]).request(for: URL(string: "http://h/")!).headers["Authorization"]
                == "Basic " + Data("alice:".utf8).base64EncodedString(), "an empty password is a password")
        let explicit = try prepared(["-u", "a:b", "-H", "Authorization: Bearer t0k"])
        #expect(explicit.request(for: URL(string: "http://h/")!).headers["Authorization"] == "Bearer t0k")
    }

    @Test func netrcGivesEachHostItsOwnCredentials() {
        let netrc = Netrc.parse("""
            machine api.example login robot password "pa ss\\"word"
            # a comment is just words to skip
            macdef init
            cd /pub

            machine other.example
              login bob
              password hunter2
            default login anonymous password guest
            """)
        #expect(netrc.credentials(for: "API.example").map { [$0.0, $0.1] } == ["robot", "pa ss\"word"])
        #expect(netrc.credentials(for: "other.example").map { [$0.0, $0.1] } == ["bob", "hunter2"])
        #expect(netrc.credentials(for: "elsewhere").map { [$0.0, $0.1] } == ["anonymous", "guest"])
        #expect(Netrc.parse("machine a login x").credentials(for: "b") == nil)

        var request = PreparedRequest(method: "GET")
        request.credentials = .fromNetrc(netrc)
        #expect(request.request(for: URL(string: "https://other.example/x")!).headers["Authorization"]
                == "Basic " + Data("bob:hunter2".utf8).base64EncodedString())
    }

    @Test func proxyFlags() throws {
        let socks = try prepared(["-x", "socks5h://127.0.0.1:1080", "--proxy-user", "u:p", "--noproxy", "localhost"])
        #expect(socks.configuration.proxy == .server(ProxyServer(kind: .socks5h, host: "127.0.0.1", port: 1080, username: "u", password: "p")))
        #expect(socks.configuration.proxyBypass == "localhost")
        #expect(try prepared(["-x", ""]).configuration.proxy == .direct)
        #expect(try prepared([]).configuration.proxy == .environment)
        #expect(refusal(["-x", "gopher://h"])?.contains("not a proxy URL") == true)
        #expect(refusal(["--proxy-user", "u:p"])?.contains("needs -x") == true)
    }

    @Test func tlsAndVersionFlags() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        try "pem".write(toFile: dir.path + "/ca.pem", atomically: true, encoding: .utf8)
        let tls = try prepared(["-k", "--cacert", dir.path + "/ca.pem", "--http1.1"])
        #expect(!tls.configuration.tlsVerificationEnabled)
        #expect(tls.configuration.caFile == dir.path + "/ca.pem")
        #expect(tls.configuration.httpVersion == .http1_1)
        #expect(try prepared(["--http2"]).configuration.httpVersion == .http2)
        #expect(refusal(["--cacert", dir.path + "/missing.pem"])?.contains("cannot read") == true)
        #expect(refusal(["--http1.1", "--http2"]) != nil)
    }

    @Test func connectTimeoutReachesTheSessionAndNonsenseIsRefused() throws {
        let configured = try prepared(["--connect-timeout", "2.5"]).configure(.default)
        #expect(configured.timeoutIntervalForConnect == 2.5)
        #expect(try prepared([]).configure(.default).timeoutIntervalForConnect == nil)
        #expect(try prepared(["--connect-timeout", "0"]).configure(.default).timeoutIntervalForConnect == nil,
                "0: libcurl's default, as curl's")
        #expect(refusal(["--connect-timeout=-1"]) == "--connect-timeout needs a number of seconds (0: libcurl's default)")
        #expect(refusal(["--connect-timeout", "inf"]) == "--connect-timeout needs a number of seconds (0: libcurl's default)")
    }

    @Test func maxRedirectsLimitsTheChainAndTheDaemonRefusesSessionWideFlags() async throws {
        #expect(try prepared(["--max-redirs", "3"]).configure(.default).maximumRedirects == 3)
        #expect(try prepared(["--max-redirs", "-1"]).configure(.default).maximumRedirects == .max, "curl's -1: no limit")
        #expect(try prepared([]).configure(.default).maximumRedirects == SessionConfiguration.default.maximumRedirects)
        #expect(refusal(["--max-redirs", "-2"]) == "--max-redirs needs a number of 0 or more (-1: no limit)")
        let server = try CLIServers.shared()
        let two = try prepared(["--max-redirs", "2"])
        let (_, followed) = try await send(two, to: server.url("/redirect/2"))
        #expect(followed.statusCode == 200)
        await #expect(throws: TransferError.self) { _ = try await self.send(two, to: server.url("/redirect/3")) }
        for flags in [["--connect-timeout", "2"], ["--max-redirs", "3"]] {
            #expect(throws: CLIFailure.self, "\(flags): the daemon's session is shared") {
                _ = try DaemonRequestFields(GetRequestFlags.parse(flags).request)
            }
        }
    }

    /// curl's --data-urlencode forms, --data-raw's literal @, and -G moving the data into the query of a GET.
    @Test func urlEncodedAndRawDataAndTheirQueryWithG() async throws {
        let dir = try Scratch()
        defer { dir.remove() }
        try "a b&c\n".write(toFile: dir.path + "/v", atomically: true, encoding: .utf8)
        let encoded = try prepared(["--data-urlencode", "a b", "--data-urlencode", "=c&d", "--data-urlencode", "q=x y",
                                    "--data-urlencode", "f@" + dir.path + "/v", "--data-raw", "@not-a-file"])
        #expect(encoded.body.map { String(decoding: $0, as: UTF8.self) } == "@not-a-file&a+b&c%26d&q=x+y&f=a+b%26c%0A",
                "--data-raw first (by kind), then each --data-urlencode as curl encodes it")
        #expect(encoded.method == "POST")
        let server = try CLIServers.shared()
        let tag = "g\(UInt32.random(in: 0...UInt32.max))"
        let query = try prepared(["-G", "-d", "a=1", "--data-urlencode", "q=a b"])
        #expect(query.body == nil && query.method == "GET")
        let (_, response) = try await send(query, to: server.url("/bytes/3?\(tag)#frag"))
        #expect(response.statusCode == 200)
        #expect(server.requestOrder(containing: tag) == ["/bytes/3?\(tag)&a=1&q=a+b"], "\(server.requestOrder(containing: tag))")
        #expect(PreparedRequest.url(URL(string: "http://h/p")!, appending: "a=1").absoluteString == "http://h/p?a=1")
        #expect(PreparedRequest.url(URL(string: "http://h/p?x#f")!, appending: "a=1").absoluteString == "http://h/p?x&a=1#f",
                "before the fragment, which stays (libcurl never sends it), as curl's")
        #expect(refusal(["-G", "-d", "q=a b"])?.contains("--data-urlencode") == true, "a space is no query byte")
        #expect(refusal(["--data-urlencode", "@" + dir.path + "/missing"])?.contains("--data-urlencode") == true)
        #expect(throws: CLIFailure.self, "the daemon is given each URL as it is") {
            _ = try DaemonRequestFields(GetRequestFlags.parse(["-G", "-d", "a=1"]).request)
        }
    }

    @Test func jsonIsTheBodyWithItsTypes() async throws {
        let json = try prepared(["--json", "{\"a\":", "--json", "1}"])
        #expect(json.body == Data("{\"a\":1}".utf8) && json.method == "POST")
        #expect(json.headers["Content-Type"] == "application/json" && json.headers["Accept"] == "application/json")
        let typed = try prepared(["--json", "[]", "-H", "Content-Type: application/vnd.x+json"])
        #expect(typed.headers["Content-Type"] == "application/vnd.x+json", "an -H wins")
        #expect(refusal(["--json", "{}", "-d", "a=1"])?.contains("--json is the whole body") == true)
        let server = try CLIServers.shared()
        let (echoed, _) = try await send(json, to: server.url("/echo"))
        #expect(echoed == "{\"a\":1}")
    }

    @Test func refusals() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        #expect(refusal(["-H", "no colon"])?.contains("not a header") == true)
        #expect(refusal(["-H", "Bad Name: x"])?.contains("not a header name") == true)
        #expect(refusal(["-H", "Empty;"])?.contains("not supported") == true)
        try "X-A: 1\r\nX-B: 2\n".write(toFile: dir.path + "/headers", atomically: true, encoding: .utf8)
        let fromFile = try prepared(["-H", "@" + dir.path + "/headers"])
        #expect(fromFile.headers["X-A"] == "1" && fromFile.headers["X-B"] == "2")
        #expect(refusal(["-X", "GET /x HTTP/1.1"])?.contains("not a method") == true)
        #expect(refusal(["-d", "@" + dir.path + "/missing"])?.contains("No such file") == true)
        #expect(throws: CLIFailure.self) { _ = try GetRequestFlags.parse(["-d", "x"]).prepare(takesBody: false) }
    }

    /// -b FILE fills the session's cookie store (a missing file is no cookies, as for curl); -c FILE gets it back.
    @Test func cookieFilesGoThroughTheSessionStore() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        try "127.0.0.1\tFALSE\t/\tFALSE\t0\tsid\tabc\n".write(toFile: dir.path + "/cookies.txt", atomically: true, encoding: .utf8)
        let request = try prepared(["-b", dir.path + "/cookies.txt", "-b", dir.path + "/missing.txt", "-c", dir.path + "/jar.txt"])
        let configuration = try request.configure(.default)
        #expect(configuration.httpCookieStorage?.cookies.map(\.name) == ["sid"])
        request.saveCookieJar()
        let jar = try String(contentsOfFile: dir.path + "/jar.txt", encoding: .utf8)
        #expect(jar.contains("127.0.0.1\tFALSE\t/\tFALSE\t0\tsid\tabc"))
    }

    /// "Run the same command again to resume" holds for a GET with -H (and -u, -b): the rest goes with the same
    /// request (it was refused: "a resumed request cannot carry -H"; found by a tester). A POST is never continued
    /// (GetContinuationTests).
    @Test func aResumedDownloadGoesOnWithTheFlagsTypedAgain() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let target = dir.path + "/out.bin"
        let url = server.url("/bytes/300000?drop=100000&t=\(UInt32.random(in: 0...UInt32.max))").absoluteString
        let first = await runGet([url, "-o", target, "-H", "X-Token: 1", "--retry", "0"])
        #expect(first?.message.contains("run the same command again to resume") == true, "\(first?.message ?? "")")
        let second = await runGet([url, "-o", target, "-H", "X-Token: 1", "--retry", "0"])
        #expect(second == nil, "\(second?.message ?? "")")
        #expect(FileManager.default.contents(atPath: target) == Data(ScenarioPattern.bytes(offset: 0, count: 300_000)))
        #expect(dir.entries == ["out.bin"], "\(dir.entries)")
    }
}

@Suite struct PasswordPromptTests {
    /// A pseudo-terminal stands for the user's: the prompt is written to it, the typed password is read with echo
    /// off (nothing comes back but the line end), and the terminal's modes are as they were afterwards.
    @Test func thePasswordIsReadWithoutEcho() throws {
        // posix_openpt and ptsname are hidden from Swift behind feature macros; these are their Linux insides.
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        try #require(master >= 0)
        defer { close(master) }
        var unlock: Int32 = 0
        var number: UInt32 = 0
        try #require(ioctl(master, 0x4004_5431, &unlock) == 0)  // TIOCSPTLCK
        try #require(ioctl(master, 0x8004_5430, &number) == 0)  // TIOCGPTN
        let terminal = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
        try #require(terminal >= 0)
        defer { close(terminal) }
        var before = termios()
        _ = tcgetattr(terminal, &before)
        #expect(before.c_lflag & tcflag_t(ECHO) != 0, "a fresh terminal echoes")

        let answer = Locked<String??>(nil)
        Thread.detachNewThread {
            let line = PasswordPrompt.ask("Enter host password for user 'alice':", terminal: terminal)
            answer.withLock { $0 = .some(line) }
        }
        var seen = readAvailable(master, until: { $0.contains("alice':") })
        #expect(seen.hasSuffix("Enter host password for user 'alice':"))
        let typed = Array("s3cret\n".utf8)
        #expect(write(master, typed, typed.count) == typed.count)
        let deadline = DispatchTime.now().uptimeNanoseconds + 10_000_000_000
        while answer.withLock({ $0 }) == nil && DispatchTime.now().uptimeNanoseconds < deadline { usleep(1000) }
        #expect(answer.withLock { $0 } == .some("s3cret"))
        seen += readAvailable(master, until: { $0.contains("\n") })
        #expect(!seen.contains("s3cret"), "the password was echoed: \(seen.debugDescription)")
        var after = termios()
        _ = tcgetattr(terminal, &after)
        #expect(after.c_lflag == before.c_lflag, "the terminal's modes are restored")
    }

    @Test func noTerminalMeansNoPrompt() throws {
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        #expect(PasswordPrompt.ask("x", terminal: fds[0]) == nil)
    }

    /// What the pseudo-terminal's far end has received, read until `done` holds or two seconds pass.
    func readAvailable(_ fd: Int32, until done: (String) -> Bool) -> String {
        var text = ""
        let deadline = DispatchTime.now().uptimeNanoseconds + 2_000_000_000
        var buffer = [UInt8](repeating: 0, count: 256)
        while !done(text) && DispatchTime.now().uptimeNanoseconds < deadline {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 20) > 0 else { continue }
            let n = read(fd, &buffer, buffer.count)
            if n > 0 { text += String(decoding: buffer[0..<n], as: UTF8.self) }
        }
        return text
    }
}
