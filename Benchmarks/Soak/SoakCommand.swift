// The soak's command line: the server child, a warm-up, the baseline figures, the run, the checks and the one
// summary line.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import SluiceScenarioServer

enum SoakCommand {
    struct Options {
        var tasks = 10_000
        var concurrency = 100
        var seed: UInt64 = 1
        var stallLimit = 90.0
        var rssGoal: Int64 = 256 << 20
        var only: Scenario?
    }

    static func main(arguments: [String]) -> Never {
        if arguments.first == "--serve" { ServerChild.serve() }
        guard let options = parse(arguments) else {
            say("usage: sluice-soak [--tasks N] [--concurrency C] [--seed S] [--stall-limit SECONDS] [--only SCENARIO]")
            say("scenarios: " + Scenario.allCases.map(\.rawValue).joined(separator: ", "))
            exit(64)
        }
        guard let server = ServerChild.start() else {
            say("sluice-soak: the scenario server did not start")
            exit(1)
        }
        let base = "http://127.0.0.1:\(server.port)"
        let refused = ScenarioServer.refusedURL()
        guard let directory = makeDirectory() else {
            say("sluice-soak: cannot make a download directory")
            exit(1)
        }
        var failures: [String] = []

        // A short run first, so that what the process keeps once for good (the dispatch manager thread, libcurl's
        // global state) is in the baseline; a leak per session still shows, since the soak's session is another.
        let warmUp = SoakRun(plans: Plan.make(count: 200, seed: options.seed &+ 1), base: base, refused: refused,
                             concurrency: 20, stallLimit: options.stallLimit).run(downloadDirectory: directory)
        failures += check(warmUp, label: "warm-up")
        let threadsBefore = ProcessFigures.steady({ ProcessFigures.threads }, quiet: 6, within: 60)
        let descriptorsBefore = ProcessFigures.openDescriptors
        let namesBefore = ProcessFigures.threadNames

        let plans = Plan.make(count: options.tasks, seed: options.seed, only: options.only)
        let result = SoakRun(plans: plans, base: base, refused: refused, concurrency: options.concurrency,
                             stallLimit: options.stallLimit).run(downloadDirectory: directory)
        failures += check(result, label: "soak")
        if let hung = result.hung {
            say("hang: \(hung)\n(the download directory \(directory) is left as it is)")
            exit(1)  // the child server sees its standard input close and ends
        }

        let descriptorsSettled = ProcessFigures.settle({ ProcessFigures.openDescriptors }, toAtMost: descriptorsBefore, within: 20)
        let threadsSettled = ProcessFigures.settle({ ProcessFigures.threads }, toAtMost: threadsBefore, within: 60)
        let descriptorsAfter = ProcessFigures.openDescriptors
        let threadsAfter = ProcessFigures.threads
        if !descriptorsSettled {
            failures.append("descriptor leak: \(descriptorsBefore) before, \(descriptorsAfter) after (\(ProcessFigures.descriptorTargets))")
        }
        if !threadsSettled {
            failures.append("thread leak: \(threadsBefore) before (\(namesBefore)), \(threadsAfter) after (\(ProcessFigures.threadNames))")
        }
        let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        if !leftovers.isEmpty {
            failures.append("\(leftovers.count) files left in the download directory: \(leftovers.prefix(5).joined(separator: ", "))")
        }
        let peak = ProcessFigures.peakResidentBytes
        if peak > options.rssGoal {
            failures.append("peak RSS \(mebibytes(peak)) MiB, above the \(mebibytes(options.rssGoal)) MiB goal")
        }
        for name in leftovers { unlink(directory + "/" + name) }
        rmdir(directory)
        server.stop()

        for line in failures { say(line) }
        let scenarios = Dictionary(grouping: plans, by: \.scenario).count
        let exactlyOnce = result.tasks - result.completedTwice - result.neverCompleted
        let parts: [String] = [
            "soak: \(options.tasks) tasks in 1 session (\(scenarios) scenarios, seed \(options.seed)), at most \(options.concurrency) at once, "
                + "\(result.tasks) task objects (\(result.resumed) resumed, \(result.converted) became downloads, "
                + "\(result.conversionsAfterTheEnd) conversions after the body's end), \(mebibytes(result.bytes)) MiB in \(oneDecimal(result.seconds)) s",
            "completed exactly once: \(exactlyOnce) of \(result.tasks), twice \(result.completedTwice), never \(result.neverCompleted), "
                + "unknown \(result.completionsOfUnknownTasks), calls after completion \(result.lateCalls)",
            "wrong outcomes \(Set(result.problems.map(\.plan)).count)",
            "fds \(descriptorsBefore) -> \(descriptorsAfter)",
            "threads \(threadsBefore) -> \(threadsAfter)",
            "leftover files \(leftovers.count)",
            "peak RSS \(mebibytes(peak)) MiB",
            failures.isEmpty ? "PASS" : "FAIL",
        ]
        say(parts.joined(separator: " | "))
        exit(failures.isEmpty ? 0 : 1)
    }

    /// The checks of one run that need no waiting: exactly-once completion, outcomes, invalidation.
    private static func check(_ r: SoakRun.Result, label: String) -> [String] {
        var found: [String] = []
        if r.completedTwice > 0 { found.append("\(label): \(r.completedTwice) tasks completed more than once") }
        if r.neverCompleted > 0 { found.append("\(label): \(r.neverCompleted) tasks never completed") }
        if r.completionsOfUnknownTasks > 0 { found.append("\(label): \(r.completionsOfUnknownTasks) completions of tasks never made") }
        if r.lateCalls > 0 { found.append("\(label): \(r.lateCalls) delegate calls after a task's completion") }
        if r.hung == nil && !r.invalidated { found.append("\(label): didBecomeInvalidWithError never came") }
        // Grouped by the text with its numbers blanked, one full example each.
        let grouped = Dictionary(grouping: r.problems) { problem in
            String(problem.text.map { $0.isNumber ? "#" : $0 }).replacing(/#+/, with: "N")
        }
        for (_, cases) in grouped.sorted(by: { $0.value.count > $1.value.count }).prefix(15) {
            found.append("\(label): \(cases.count)x like plan \(cases[0].plan): \(cases[0].text)")
        }
        return found
    }

    private static func parse(_ arguments: [String]) -> Options? {
        var options = Options()
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst() else { return nil }
            switch flag {
            case "--tasks": guard let n = Int(value), n > 0 else { return nil }; options.tasks = n
            case "--concurrency": guard let n = Int(value), n > 0 else { return nil }; options.concurrency = n
            case "--seed": guard let n = UInt64(value) else { return nil }; options.seed = n
            case "--stall-limit": guard let n = Double(value), n > 0 else { return nil }; options.stallLimit = n
            case "--only": guard let s = Scenario(rawValue: value) else { return nil }; options.only = s
            default: return nil
            }
        }
        return options
    }

    private static func makeDirectory() -> String? {
        let base = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((base + "/sluice-soak-XXXXXX").utf8CString)
        return template.withUnsafeMutableBufferPointer { $0.baseAddress.flatMap { mkdtemp($0) } }.map { String(cString: $0) }
    }

    private static func mebibytes(_ bytes: Int64) -> String { oneDecimal(Double(bytes) / 1_048_576) }

    private static func oneDecimal(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    private static func say(_ line: String) {
        let text = line + "\n"
        _ = text.withCString { write(1, $0, strlen($0)) }
    }
}
