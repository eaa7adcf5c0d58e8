// The config file's defaults under `sluice get`'s flags: a flag given wins, then the file, then get's own default.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SluiceViewModel
extension SluiceConfig {
    /// The settings of the command that is running (the defaults when there is no file).
    @TaskLocal static var inForce = SluiceConfig()

    /// Fills what the command line left unset. output-dir is left out on purpose: get's default is standard
    /// output, and a UI setting must not turn `sluice get URL | jq` into a file (docs/decisions.md).
    func applyDefaults(to get: inout GetCommand) {
        if get.jobs == nil, jobs.source != .defaultValue { get.jobs = jobs.value }
        if get.timeout == nil, timeout.source != .defaultValue { get.timeout = timeout.value }
        if get.retryOptions.retry == nil, retry.source != .defaultValue { get.retryOptions.retry = retry.value }
        if get.retryOptions.retryMaxTime == nil { get.retryOptions.retryMaxTime = retryMaxTime.value }
        if get.retryOptions.limitRate == nil { get.retryOptions.limitRate = limitRate.value }
        // A split needs -o FILE: the file's split (or the host rule's) applies only where get saves to a file.
        if get.splitOptions.splitGiven == nil, get.output != nil, get.output != "-" {
            let hostRule = get.urls.first.flatMap(rule(forURL:))
            if let setting = hostRule?.split ?? (split.source != .defaultValue ? split : nil) {
                // at most the host's connections (a typed --split is the user's own call)
                get.splitOptions.splitGiven = min(setting.value, hostRule?.connections?.value ?? .max)
            }
        }
        // A host rule's limit-rate is the task's limit; get runs one task per host here, so the session's is it.
        if get.retryOptions.limitRate == nil, get.urls.count == 1,
           let hostRate = get.urls.first.flatMap(rule(forURL:))?.limitRate {
            get.retryOptions.limitRate = hostRate.value
        }
    }

    /// A host rule's `connections`: that host's tasks at once, and the most connections a split download of it
    /// opens (aria2's --max-connection-per-server, for one site).
    func connections(forHost host: String) -> Int? { rule(for: host)?.connections?.value }

    /// The per-host limit for a `get` batch: libcurl's is one for every host, so a rule's `connections` applies
    /// when all the URLs are under that one rule (a list from one site); nil otherwise.
    func sharedConnections(of urls: [URL]) -> Int? {
        guard let first = urls.first?.host.flatMap(rule(for:)), let limit = first.connections?.value,
              urls.allSatisfy({ $0.host.flatMap(rule(for:)) == first }) else { return nil }
        return limit
    }

    /// The same for a command's URLs, parsed only when the file has host rules.
    func sharedConnections(of targets: URLTargets) -> Int? {
        hosts.isEmpty ? nil : sharedConnections(of: (try? targets.all()) ?? [])
    }

    func rule(forURL text: String) -> HostRule? {
        guard !hosts.isEmpty, let url = ParsedURL.parse(text) else { return nil }
        return rule(forURL: url)
    }

    func rule(forURL url: URL) -> HostRule? {
        guard !hosts.isEmpty, let host = url.host else { return nil }
        return rule(for: host)
    }

    /// The split for a download of this URL when the command line gave none: the host rule's, else the file's.
    func split(forURL text: String) -> Int? {
        if let rule = rule(forURL: text)?.split { return rule.value }
        return split.source == .defaultValue ? nil : split.value
    }
}

extension SluiceConfig {
    /// The UI's (`sluice URL...`) settings the command line left unset. Its requests get the host rules' headers
    /// through `PreparedRequest.hostRules`; OpenCommand gives each task its rule's split, limit-rate and connections.
    func applyDefaults(to open: inout OpenCommand) {
        if open.jobs == nil, jobs.source != .defaultValue { open.jobs = jobs.value }
        if open.perHost == nil, perHost.source != .defaultValue { open.perHost = perHost.value }
        if open.split == nil, split.source != .defaultValue { open.split = split.value }
        applyDefaults(to: &open.interface, outputDir: true)
        if open.retryOptions.retry == nil, retry.source != .defaultValue { open.retryOptions.retry = retry.value }
        if open.retryOptions.retryMaxTime == nil { open.retryOptions.retryMaxTime = retryMaxTime.value }
        if open.retryOptions.limitRate == nil { open.retryOptions.limitRate = limitRate.value }
        applyDefaults(to: &open.hookOptions)
    }

    /// The daemon's settings the command line left unset, as `sluice -d` takes them (found by a tester: `sluice
    /// config` listed them in force, and the daemon ran 6 at once, unlimited). Its per-host, which no flag gives,
    /// goes straight into the daemon's settings.
    func applyDefaults(to daemon: inout DaemonCommand) {
        if daemon.jobs == nil, jobs.source != .defaultValue { daemon.jobs = jobs.value }
        if daemon.limitRate == nil { daemon.limitRate = limitRate.value }
        applyDefaults(to: &daemon.hookOptions)
    }

    /// The file's theme (and output-dir, for the UIs that save files) under the command line's.
    func applyDefaults(to interface: inout InterfaceOptions, outputDir withOutputDir: Bool) {
        if withOutputDir, interface.outputDirGiven == nil { interface.outputDirGiven = outputDir.value }
        if interface.themeGiven == nil { interface.themeGiven = theme.value }
    }

    /// The file's hooks, for those the command line did not give.
    func applyDefaults(to hooks: inout HookOptions) {
        if hooks.onComplete == nil { hooks.onComplete = onComplete.value }
        if hooks.onError == nil { hooks.onError = onError.value }
        if hooks.onQueueEmpty == nil { hooks.onQueueEmpty = onQueueEmpty.value }
    }
}
