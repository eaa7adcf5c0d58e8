// The config file's settings as values, each with where it came from, read whole from the shared TOML subset.
import SluiceViewModel

/// Where an effective setting came from, as `sluice config` shows it.
enum SettingSource: Equatable, Sendable, CustomStringConvertible {
    case defaultValue
    case file(String, line: Int)
    case commandLine

    var description: String {
        switch self {
        case .defaultValue: "default"
        case .file(let path, let line): "\(path):\(line)"
        case .commandLine: "command line"
        }
    }
}

/// One setting's value and its source.
struct Setting<Value: Equatable & Sendable>: Equatable, Sendable {
    var value: Value
    var source: SettingSource
}

struct SluiceConfig: Equatable, Sendable {
    /// The file that was read; nil when there was none (no default file).
    var path: String?
    var outputDir = Setting<String?>(value: nil, source: .defaultValue)
    var jobs = Setting(value: 6, source: .defaultValue)
    var perHost = Setting(value: 6, source: .defaultValue)
    var retry = Setting(value: 0, source: .defaultValue)
    var retryMaxTime = Setting<Double?>(value: nil, source: .defaultValue)
    var limitRate = Setting<String?>(value: nil, source: .defaultValue)
    var split = Setting(value: 1, source: .defaultValue)
    var theme = Setting<String?>(value: nil, source: .defaultValue)
    var timeout = Setting(value: 60.0, source: .defaultValue)
    var onComplete = Setting<String?>(value: nil, source: .defaultValue)
    var onError = Setting<String?>(value: nil, source: .defaultValue)
    var onQueueEmpty = Setting<String?>(value: nil, source: .defaultValue)
    /// The UI's `!`: a command run on the selected task, with its facts in SLUICE_* variables.
    var taskCommand = Setting<String?>(value: nil, source: .defaultValue)
    var hosts: [HostRule] = []

    /// The rule for a host: an exact name first, then the longest `*.domain` that matches.
    /// The file's `timeout` for the UI and the daemon (`get` reads it with its own --timeout); nil when the file
    /// does not set it, leaving the engine's 60 s.
    var requestTimeout: Double? { timeout.source == .defaultValue ? nil : timeout.value }

    func rule(for host: String) -> HostRule? {
        guard !hosts.isEmpty else { return nil }  // no lowercased copy per URL of a list when there are no rules
        let host = host.lowercased()
        if let exact = hosts.first(where: { $0.pattern == host }) { return exact }
        return hosts.filter { $0.matches(host) }.max { $0.pattern.count < $1.pattern.count }
    }

    static let topLevelKeys = ["output-dir", "jobs", "per-host", "retry", "retry-max-time", "limit-rate", "split", "theme",
                               "timeout", "on-complete", "on-error", "on-queue-empty", "task-command"]

    /// Reads a config file's text; any error stops the whole file (never half a config).
    static func parse(_ text: String, file: String) throws(TOMLError) -> SluiceConfig {
        var config = SluiceConfig(path: file)
        var hostOrder: [String] = []
        var hostEntries: [String: [TOMLEntry]] = [:]
        for entry in try TOMLSubset.document(text, file: file) {
            func fail(_ message: String) -> TOMLError { TOMLError(file: file, line: entry.line, key: entry.key, message: message) }
            switch entry.table.first {
            case nil:
                try config.take(entry, file: file)
            case "hosts":
                guard entry.table.count >= 2 else { throw fail("[hosts] holds only [hosts.\"name\"] tables") }
                let pattern = entry.table[1].lowercased()
                if hostEntries[pattern] == nil { hostOrder.append(pattern) }
                hostEntries[pattern, default: []].append(entry)
            default:
                throw TOMLError(file: file, line: entry.line, key: nil,
                                message: "unknown table [\(TOMLSubset.dotted(entry.table))]; known: [hosts.\"name\"]")
            }
        }
        for pattern in hostOrder {
            config.hosts.append(try HostRule.parse(pattern: pattern, entries: hostEntries[pattern] ?? [], file: file))
        }
        return config
    }

    private mutating func take(_ entry: TOMLEntry, file: String) throws(TOMLError) {
        let here = SettingSource.file(file, line: entry.line)
        let reader = ValueReader(entry: entry, file: file)
        switch entry.key {
        case "output-dir": outputDir = Setting(value: try reader.nonEmptyString(), source: here)
        case "jobs": jobs = Setting(value: try reader.integer(in: 1...1000), source: here)
        case "per-host": perHost = Setting(value: try reader.integer(in: 1...1000), source: here)
        case "retry": retry = Setting(value: try reader.integer(in: 0...1000), source: here)
        case "retry-max-time": retryMaxTime = Setting(value: try reader.seconds(), source: here)
        case "limit-rate": limitRate = Setting(value: try reader.rate(), source: here)
        case "split": split = Setting(value: try reader.integer(in: 1...SplitOptions.maximum), source: here)
        case "theme": theme = Setting(value: try reader.nonEmptyString(), source: here)
        case "timeout": timeout = Setting(value: try reader.seconds(), source: here)
        case "on-complete": onComplete = Setting(value: try reader.nonEmptyString(), source: here)
        case "on-error": onError = Setting(value: try reader.nonEmptyString(), source: here)
        case "on-queue-empty": onQueueEmpty = Setting(value: try reader.nonEmptyString(), source: here)
        case "task-command": taskCommand = Setting(value: try reader.nonEmptyString(), source: here)
        default:
            throw reader.fail("unknown key; known: \(Self.topLevelKeys.joined(separator: ", ")) and [hosts.\"name\"] tables")
        }
    }
}

/// Reads one entry's value as the type its key needs; errors name file, line and key.
struct ValueReader {
    let entry: TOMLEntry
    let file: String

    func fail(_ message: String) -> TOMLError { TOMLError(file: file, line: entry.line, key: entry.key, message: message) }

    func nonEmptyString() throws(TOMLError) -> String {
        guard case .string(let text) = entry.value else { throw fail("expected a string, found \(entry.value.typeName)") }
        guard !text.isEmpty else { throw fail("must not be empty") }
        return text
    }

    func integer(in range: ClosedRange<Int>) throws(TOMLError) -> Int {
        guard case .integer(let n) = entry.value else { throw fail("expected an integer, found \(entry.value.typeName)") }
        guard range.contains(n) else { throw fail("\(n) is out of range (\(range.lowerBound) to \(range.upperBound))") }
        return n
    }

    func bool() throws(TOMLError) -> Bool {
        guard case .bool(let b) = entry.value else { throw fail("expected true or false, found \(entry.value.typeName)") }
        return b
    }

    func seconds() throws(TOMLError) -> Double {
        let value: Double
        switch entry.value {
        case .integer(let n): value = Double(n)
        case .float(let x): value = x
        default: throw fail("expected a number of seconds, found \(entry.value.typeName)")
        }
        guard value > 0 else { throw fail("must be more than 0 seconds") }
        return value
    }

    /// A speed as --limit-rate takes it: "500k", "2M", or a number of bytes per second.
    func rate() throws(TOMLError) -> String {
        let text: String
        switch entry.value {
        case .string(let s): text = s
        case .integer(let n): text = String(n)
        default: throw fail("expected a speed such as \"500k\" or \"2M\", found \(entry.value.typeName)")
        }
        guard RetryOptions.parseRate(text) != nil else { throw fail("not a speed: \(text) (say 500k, 2M or 1G)") }
        return text
    }
}
