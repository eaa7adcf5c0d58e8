// `sluice config [--json]`: the settings in force and where each came from (default, file:line, command line).
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SluiceViewModel

struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Show the effective settings and where each came from (default, the config file's line, the command line).",
        discussion: "The file is --config FILE, else $SLUICE_CONFIG, else $XDG_CONFIG_HOME/sluice/config.toml (~/.config/sluice/config.toml); see the README for its keys. The flags below are the ones sluice URL... takes: given here, they show what that command line would run with (sluice config -j 8 --limit-rate 1M)."
    )

    @OptionGroup var file: ConfigOption

    @Flag(help: "The same as one JSON object.")
    var json = false

    @OptionGroup(title: "Settings as a command line would give them") var given: GivenSettings

    mutating func run() throws {
        var config = try file.load()
        try given.apply(to: &config)
        let report = ConfigReport(config, lookedFor: ConfigFile.locate(named: file.path, environment: ProcessInfo.processInfo.environment)?.path)
        StandardStreams.output(json ? try report.json() + "\n" : report.text())
    }
}

/// The settings flags of `sluice URL...`, for `sluice config` to show over the file's, marked "command line".
struct GivenSettings: ParsableArguments {
    @Option(help: ArgumentHelp("Where downloads go.", valueName: "dir")) var outputDir: String?
    @Option(name: .customShort("j"), help: ArgumentHelp("Tasks at once.", valueName: "n")) var jobs: Int?
    @Option(help: ArgumentHelp("Tasks at once per server.", valueName: "n")) var perHost: Int?
    @Option(help: ArgumentHelp("Retries.", valueName: "n")) var retry: Int?
    @Option(help: ArgumentHelp("Seconds of retrying at most.", valueName: "seconds")) var retryMaxTime: Double?
    @Option(help: ArgumentHelp("Bytes per second, as curl's (2M, 500k).", valueName: "rate")) var limitRate: String?
    @Option(help: ArgumentHelp("Connections per download.", valueName: "n")) var split: Int?
    @Option(help: ArgumentHelp("A theme's name or file.", valueName: "theme")) var theme: String?
    @Option(help: ArgumentHelp("Seconds without a byte.", valueName: "seconds")) var timeout: Double?
    @Option(help: ArgumentHelp("A command run when a task completes.", valueName: "cmd")) var onComplete: String?
    @Option(help: ArgumentHelp("A command run when a task fails.", valueName: "cmd")) var onError: String?
    @Option(help: ArgumentHelp("A command run when the queue empties.", valueName: "cmd")) var onQueueEmpty: String?

    /// The given flags over the file's settings; the same bounds as the commands that take them.
    func apply(to config: inout SluiceConfig) throws {
        func check(_ value: Int?, _ range: ClosedRange<Int>, _ flag: String) throws {
            if let value, !range.contains(value) { throw CLIFailure(code: 2, message: "\(flag) takes \(range.lowerBound) to \(range.upperBound)") }
        }
        try check(jobs, 1...100_000, "-j")
        try check(perHost, 1...1000, "--per-host")
        try check(retry, 0...1000, "--retry")
        try check(split, 1...SplitOptions.maximum, "--split")
        if let limitRate, ByteCountText.parse(limitRate) == nil {
            throw CLIFailure(code: 2, message: "--limit-rate: not a rate: \(Sanitized.text(limitRate)) (say 500k, 2M)")
        }
        // Set field by field: an optional setting given an absent flag must stay as the file has it.
        if let outputDir { config.outputDir = Setting(value: outputDir, source: .commandLine) }
        if let jobs { config.jobs = Setting(value: jobs, source: .commandLine) }
        if let perHost { config.perHost = Setting(value: perHost, source: .commandLine) }
        if let retry { config.retry = Setting(value: retry, source: .commandLine) }
        if let retryMaxTime { config.retryMaxTime = Setting(value: retryMaxTime, source: .commandLine) }
        if let limitRate { config.limitRate = Setting(value: limitRate, source: .commandLine) }
        if let split { config.split = Setting(value: split, source: .commandLine) }
        if let theme { config.theme = Setting(value: theme, source: .commandLine) }
        if let timeout { config.timeout = Setting(value: timeout, source: .commandLine) }
        if let onComplete { config.onComplete = Setting(value: onComplete, source: .commandLine) }
        if let onError { config.onError = Setting(value: onError, source: .commandLine) }
        if let onQueueEmpty { config.onQueueEmpty = Setting(value: onQueueEmpty, source: .commandLine) }
    }
}

/// `--config FILE`, for every command that reads the config file.
struct ConfigOption: ParsableArguments {
    @Option(name: .customLong("config"), help: ArgumentHelp("Read settings from this file instead of ~/.config/sluice/config.toml.", valueName: "file"))
    var path: String?

    func load() throws -> SluiceConfig { try ConfigFile.load(named: path) }
}

/// The effective settings as rows, for the text and the JSON output alike.
struct ConfigReport: Encodable {
    struct Row: Encodable {
        let key: String
        let value: String?
        let source: String
        /// Whether the text output quotes the value (a string setting, as the file writes it).
        var quoted = true
        enum CodingKeys: CodingKey { case key, value, source }
    }
    struct Host: Encodable { let host: String; let source: String; let settings: [Row] }
    let file: String?
    /// Where sluice looked for a file when there was none (nil when it read one, or had nowhere to look).
    let lookedFor: String?
    let settings: [Row]
    let hosts: [Host]

    init(_ config: SluiceConfig, lookedFor: String? = nil) {
        file = config.path
        self.lookedFor = config.path == nil ? lookedFor : nil
        func row<V>(_ key: String, _ s: Setting<V>) -> Row {
            let isText = s.value is String || s.value is String?
            return Row(key: key, value: Self.shown(s.value), source: s.source.description, quoted: isText)
        }
        settings = [
            row("output-dir", config.outputDir), row("jobs", config.jobs), row("per-host", config.perHost),
            row("retry", config.retry), row("retry-max-time", config.retryMaxTime), row("limit-rate", config.limitRate),
            row("split", config.split), row("theme", config.theme), row("timeout", config.timeout),
            row("on-complete", config.onComplete), row("on-error", config.onError), row("on-queue-empty", config.onQueueEmpty),
            row("task-command", config.taskCommand),
        ]
        hosts = config.hosts.map { rule in
            let place = config.path.map { SettingSource.file($0, line: rule.line).description } ?? "default"
            var rows: [Row] = []
            if let s = rule.split { rows.append(row("split", s)) }
            if let s = rule.connections { rows.append(row("connections", s)) }
            if let s = rule.limitRate { rows.append(row("limit-rate", s)) }
            if let s = rule.netrc { rows.append(row("netrc", s)) }
            for header in rule.headers {
                let source = config.path.map { SettingSource.file($0, line: header.line).description } ?? "default"
                rows.append(Row(key: "header", value: "\(header.name): \(header.value)", source: source))
            }
            return Host(host: rule.pattern, source: place, settings: rows)
        }
    }

    /// A value as text; nil for an unset optional.
    static func shown(_ value: Any) -> String? {
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional { return mirror.children.first.flatMap { shown($0.value) } }
        if let x = value as? Double { return x == x.rounded() && abs(x) < 1e15 ? String(Int(x)) : String(x) }
        return String(describing: value)
    }

    func text() -> String {
        var out = "# config file: \(file.map(Sanitized.text) ?? "none" + (lookedFor.map { " (no " + Sanitized.text($0) + ")" } ?? ""))\n"
        func line(_ row: Row) -> String {
            let shown = row.value.map { row.quoted ? "\"" + Sanitized.text($0) + "\"" : Sanitized.text($0) } ?? "(unset)"
            let left = "\(row.key) = \(shown)"
            return left + String(repeating: " ", count: max(0, 40 - left.count)) + "  # \(Sanitized.text(row.source))\n"
        }
        for row in settings { out += line(row) }
        for host in hosts {
            out += "\n[hosts.\"\(Sanitized.text(host.host))\"]  # \(Sanitized.text(host.source))\n"
            for row in host.settings { out += line(row) }
        }
        return out
    }

    func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}
