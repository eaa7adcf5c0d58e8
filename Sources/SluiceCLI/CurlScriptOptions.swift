// curl flags that scripts carry and that need little of sluice: --url, -Z/--parallel, --parallel-max,
// --create-dirs, --no-progress-meter and --fail-with-body, with curl's meanings, so that a script's curl line runs
// under `sluice get` as it is.
import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import SluiceStore
import SluiceViewModel

struct CurlScriptOptions: ParsableArguments {
    @Option(name: .customLong("url"), parsing: .unconditionalSingleValue, help: ArgumentHelp("A URL to fetch, as an argument is (repeatable).", valueName: "url"))
    var urls: [String] = []

    @Flag(name: [.customShort("Z"), .customLong("parallel")], help: "Fetch several URLs at once (sluice always does; -j says how many).")
    var parallel = false

    @Option(name: .customLong("parallel-max"), parsing: .unconditional, help: ArgumentHelp("How many transfers at once, as -j.", valueName: "N"))
    var parallelMax: Int?

    @Flag(name: .customLong("create-dirs"), help: "Make the directories that -o and --output-dir name when they are missing.")
    var createDirs = false

    @Flag(name: .customLong("no-progress-meter"), help: "No progress line; errors and warnings still go to stderr.")
    var noProgressMeter = false

    @Flag(name: .customLong("fail-with-body"), help: "Write the body of a response of 400 or more to standard output, and exit 22 (what sluice does without -f; a file of -o never gets an error page).")
    var failWithBody = false

    /// Every flag as ArgumentParser leaves it when none is given (the fast parse's, which reads none of them).
    static var unset: CurlScriptOptions {
        var options = CurlScriptOptions()
        options.urls = []
        options.parallel = false
        options.parallelMax = nil
        options.createDirs = false
        options.noProgressMeter = false
        options.failWithBody = false
        return options
    }

    /// The directory `path` names and those above it, made as `mkdir -p` makes them (mode 0750, as curl's
    /// --create-dirs); nothing when it is there. What exists is never changed.
    static func makeDirectories(_ path: String) throws(CLIFailure) {
        if let failure = Directories.make(path, mode: 0o750) {
            throw CLIFailure(code: 1, message: "--create-dirs: cannot make \(Sanitized.text(failure.path)): \(failure.reason)")
        }
    }

    /// The directory part of an -o path, made when --create-dirs asks for it.
    func makeParent(of output: String) throws(CLIFailure) {
        guard createDirs, output != "-", let slash = output.lastIndex(of: "/"), slash != output.startIndex else { return }
        try Self.makeDirectories(String(output[..<slash]))
    }
}
