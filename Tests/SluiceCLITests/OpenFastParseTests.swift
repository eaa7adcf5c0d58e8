// `sluice URL...` and `sluice open ...` read by hand give the command ArgumentParser gives, or leave the line to it.
import ArgumentParser
import Testing
@testable import SluiceCLI

@Suite struct OpenFastParseTests {
    private static let subcommands = SluiceCommand.configuration.subcommands.map { $0._commandName }.filter { $0 != "open" }

    /// Every property of the command, option groups included, as text; an unset property-wrapper shows
    /// `*definition*` (and would stop the program when read).
    private func text(_ command: OpenCommand) -> String { String(describing: command) }

    private func fastParse(_ arguments: [String]) -> OpenCommand? { OpenFastParse.command(arguments, subcommands: Self.subcommands) }

    /// The whole tree's parse, as `sluice` runs it, when it gives `open`.
    private func treeParse(_ arguments: [String]) -> OpenCommand? { (try? SluiceCommand.parseAsRoot(arguments)) as? OpenCommand }

    @Test func theBenchmarksLinesTakeTheFastWay() throws {
        for arguments in [["-d", "-j", "50", "-i", "urls.txt", "--output-dir", "out"],
                          ["open", "-d", "--exit-when-done", "-j", "50", "-i", "urls.txt", "--output-dir", "out"]] {
            let fast = try #require(fastParse(arguments), "\(arguments)")
            let tree = try #require(treeParse(arguments), "\(arguments)")
            #expect(text(fast) == text(tree), "\(arguments)")
            #expect(fast.download && fast.jobs == 50 && fast.inputFile == "urls.txt" && fast.interface.outputDirGiven == "out")
            #expect(!text(fast).contains("*definition*"))
        }
    }

    @Test func theDefaultsAreOpenCommandsOwn() throws {
        for arguments in [[], ["http://h/"], ["open"], ["open", "http://h/"]] {
            let fast = try #require(fastParse(arguments), "\(arguments)")
            #expect(text(fast) == text(try #require(treeParse(arguments))), "\(arguments)")
            #expect(!text(fast).contains("*definition*"), "\(arguments)")
        }
    }

    @Test func helpErrorsOtherCommandsAndUnusualShapesAreLeftToArgumentParser() {
        for arguments in [["--help"], ["-h"], ["open", "--help"], ["-j"], ["-j", "x"], ["--bogus"], ["--", "http://h/"],
                          ["--jobs=5"], ["-dj", "5"], ["-j", "2", "-j", "3"], ["-d", "-d"], ["--download", "-d", "u"],
                          ["-H", "X: y", "u"], ["--background", "u"], ["--id", "x"], ["-g", "u"], ["--config", "f"],
                          ["--version"], ["get", "u"], ["add", "u"], ["history"], ["daemon"], ["-i", "-"],
                          ["help"], ["help", "get"], ["help", "open"]] {
            #expect(fastParse(arguments) == nil, "\(arguments)")
        }
    }

    /// Four hundred generated argument lists, half with `open` first (about half of them plain enough for the fast
    /// way): whenever the fast way takes one, ArgumentParser takes it too and gives the same command, every property
    /// set. On a thread of its own: the tree's parse of each takes tens of milliseconds in a debug build, long
    /// enough to hold one of Swift concurrency's few threads from other tests.
    @Test func bothParsesAgreeOverManyArgumentLists() async {
        let (taken, left, failures) = await offThePool { Self.generatedLines() }
        #expect(failures.isEmpty, "\(failures.count) lists differ: \(failures.prefix(5))")
        // Both kinds must occur often, or the comparison says little.
        #expect(taken > 120 && left > 120, "taken \(taken), left \(left)")
    }

    private static func generatedLines() -> (taken: Int, left: Int, failures: [String]) {
        let names = ["-i", "-j", "--per-host", "--split", "--output-dir", "--theme", "--retry", "--retry-max-time",
                     "--limit-rate", "--on-complete", "--on-error", "--on-queue-empty", "-d", "--download", "--ask",
                     "--fresh", "--exit-when-done", "--notify",
                     // not read by the fast way
                     "--jobs", "-h", "--", "-dj", "--retry=3", "--bogus", "-", "-5", "-H", "--background", "--hook-timeout",
                     "-A", "--compressed", "--connect-timeout"]
        let values = ["http://h/a", "https://h/b", "", "0", "3", "17", "-1", "2.5", "1e3", "nan", "abc", "2M", "x.txt", "echo hi"]
        return compareParses(count: 400, seed: 29, first: { $0 % 2 == 0 ? ["open"] : [] }, names: names, values: values,
                             fast: { OpenFastParse.command($0, subcommands: subcommands) },
                             tree: { (try? SluiceCommand.parseAsRoot($0)) as? OpenCommand })
    }
}
