// `sluice get`'s hand-read arguments give the command ArgumentParser gives, or leave the line to it.
import ArgumentParser
import Testing
@testable import SluiceCLI

@Suite struct GetFastParseTests {
    /// Every property of the command, option groups included, as text; an unset property-wrapper shows
    /// `*definition*` (and would stop the program when read).
    private func text(_ command: GetCommand) -> String { String(describing: command) }

    @Test func theBenchmarksLineTakesTheFastWay() throws {
        let arguments = ["get", "-j", "50", "--http2", "--cacert", "ca.pem", "-i", "urls.txt"]
        let fast = try #require(GetFastParse.command(arguments))
        let tree = try GetCommand.parse(Array(arguments.dropFirst()))
        #expect(text(fast) == text(tree))
        #expect(fast.jobs == 50 && fast.requestOptions.http2 && fast.inputFile == "urls.txt" && fast.urls.isEmpty)
        #expect(!text(fast).contains("*definition*"))
    }

    @Test func theDefaultsAreGetCommandsOwn() throws {
        let fast = try #require(GetFastParse.command(["get", "http://h/"]))
        #expect(text(fast) == text(try GetCommand.parse(["http://h/"])))
        #expect(!text(fast).contains("*definition*"))
    }

    @Test func helpErrorsAndUnusualShapesAreLeftToArgumentParser() {
        for arguments in [["get", "--help"], ["get", "-h"], ["get", "-j"], ["get", "-j", "x"], ["get", "--bogus"],
                          ["get", "--", "http://h/"], ["get", "--jobs=5"], ["get", "-kj", "5"], ["get", "-o", "-", "u"],
                          ["get", "-j", "2", "-j", "3"], ["get", "--force", "--force"], ["get", "--split", "0", "u"],
                          ["get", "--har-bodies", "u"], ["get", "--disposition", "maybe"], ["get", "--checksum", "md5=x"],
                          ["put", "f", "u"], ["open", "u"], [], ["getx"]] {
            #expect(GetFastParse.command(arguments) == nil, "\(arguments)")
        }
    }

    /// A thousand generated argument lists (about half of them plain enough for the fast way): whenever the fast way
    /// takes one, ArgumentParser takes it too and gives the same command, every property set. On a thread of its
    /// own: tens of seconds of parsing in a debug build held one of Swift concurrency's few threads, and other tests'
    /// awaits and streams waited past their deadlines.
    @Test func bothParsesAgreeOverManyArgumentLists() async {
        let (taken, left, failures) = await offThePool { Self.generatedLines() }
        #expect(failures.isEmpty, "\(failures.count) lists differ: \(failures.prefix(5))")
        // Both kinds must occur often, or the comparison says little.
        #expect(taken > 300 && left > 300, "taken \(taken), left \(left)")
    }

    private static func generatedLines() -> (taken: Int, left: Int, failures: [String]) {
        let names = ["-i", "-j", "--output-dir", "-o", "--output", "--force", "--disposition", "--trace", "--timeout",
                     "--mermaid", "--har", "--har-bodies", "--retry", "--retry-max-time", "--limit-rate", "--split",
                     "--mirrors", "--checksum", "-H", "--header", "-X", "--request", "--method", "--data", "--data-binary",
                     "-u", "--user", "--basic", "--digest", "--anyauth", "--netrc", "-b", "--cookie", "-c", "--cookie-jar",
                     "-x", "--proxy", "-U", "--proxy-user", "--proxy-basic", "--proxy-digest", "--proxy-anyauth",
                     "--noproxy", "-k", "--insecure", "--cacert", "--http1.1", "--http2", "-L", "--location", "-d",
                     "-A", "--user-agent", "-e", "--referer", "--compressed", "-s", "--silent", "-S", "--show-error",
                     "-f", "--fail", "-O", "--remote-name", "-J", "--remote-header-name", "-I", "--head", "-m", "--max-time", "-r", "--range",
                     "-w", "--write-out", "--connect-timeout", "-v", "--verbose", "-C", "--continue-at",
                     // not read by the fast way
                     "--jobs", "-h", "--help", "--", "-kf", "-sSL", "--timeout=3", "--bogus", "-", "-5"]
        let values = ["http://h/a", "https://h/b", "", "0", "3", "17", "-1", "2.5", "1e3", "nan", "abc", "allow", "cancel",
                      "becomeDownload", "md5=0123456789abcdef0123456789abcdef", "sha256=zz", "a:b", "@file", "X: y", "2M",
                      "%{http_code}\\n"]
        return compareParses(count: 1000, seed: 13, first: { _ in ["get"] }, names: names, values: values,
                             fast: GetFastParse.command, tree: { try? GetCommand.parse(Array($0.dropFirst())) })
    }
}
