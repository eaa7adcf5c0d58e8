// Ten thousand URLs as arguments (`sluice $(cat list)`) without swift-argument-parser's per-value cost: it copies
// an array value's whole storage for each value it adds (ParsedValues.set under perf), so 10,000 positional
// values took 4 s in a release build before the first byte, against 0.6 s for -i LIST. Long runs of plain
// arguments are folded into one placeholder before parsing and unfolded by the command.
import Synchronization

struct ArgumentRuns: Sendable {
    /// Runs shorter than this are parsed as they are: the fold is for lists, not for everyday command lines.
    static let threshold = 64
    private static let marker = "\u{1}sluice-run:"
    /// What `runMain` folded, for the command to unfold.
    private static let folded = Mutex(ArgumentRuns(runs: []))
    static var current: ArgumentRuns {
        get { folded.withLock { $0 } }
        set { folded.withLock { $0 = newValue } }
    }

    private let runs: [[String]]

    /// The arguments with each long run of plain ones (none starting with `-`) folded: the run's first stays (it
    /// may be an option's value), the rest become one placeholder that the command's positional list receives.
    /// Options take one value each in Sluice, so every argument after the first of a run is positional.
    static func fold(_ arguments: [String]) -> (arguments: [String], runs: ArgumentRuns) {
        guard arguments.count > threshold else { return (arguments, ArgumentRuns(runs: [])) }
        var result: [String] = []
        result.reserveCapacity(arguments.count)
        var runs: [[String]] = []
        var i = 0
        while i < arguments.count {
            var end = i
            while end < arguments.count, !arguments[end].hasPrefix("-") { end += 1 }
            if end - i > threshold {
                result.append(arguments[i])
                result.append(marker + String(runs.count))
                runs.append(Array(arguments[(i + 1)..<end]))
                i = end
            } else {
                result.append(arguments[i])
                i += 1
            }
        }
        return (result, ArgumentRuns(runs: runs))
    }

    /// A positional list with its placeholders replaced by the arguments they stand for, in order.
    func unfold(_ values: [String]) -> [String] {
        guard !runs.isEmpty, values.contains(where: { $0.hasPrefix(Self.marker) }) else { return values }
        var result: [String] = []
        for value in values {
            if value.hasPrefix(Self.marker), let index = Int(value.dropFirst(Self.marker.count)), runs.indices.contains(index) {
                result += runs[index]
            } else {
                result.append(value)
            }
        }
        return result
    }
}
