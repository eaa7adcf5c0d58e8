// The config file's host rules as a request meets them: the matching rule's headers under the command line's.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SluiceEngine

/// What `PreparedRequest.request(for:)` adds for each URL's host; empty when there is no config file.
struct HostRulesApplied: Sendable {
    var config = SluiceConfig()
    /// ~/.netrc, read once when some rule says `netrc = true`; nil when it could not be read (no credentials then).
    var netrc: Netrc?

    init() {}

    init(_ config: SluiceConfig) {
        self.config = config
        if config.hosts.contains(where: { $0.netrc?.value == true }) { netrc = try? Netrc.load() }
    }

    /// Nil at once without rules: URL.host parses the URL anew on each call, and this runs for every request.
    func rule(for url: URL) -> HostRule? {
        guard !config.hosts.isEmpty else { return nil }
        return url.host.flatMap { config.rule(for: $0) }
    }

    /// The rule's headers for this URL; a header the command line named (-H, even `Name:` that removes one) wins.
    func addHeaders(for url: URL, to fields: inout HTTPHeaders, given: HTTPHeaders) {
        guard let rule = rule(for: url) else { return }
        for header in rule.headers where given[header.name] == nil {
            fields.add(header.name, header.value)
        }
    }

    /// The rule's `.netrc` credentials for this URL, when it asks for them and the file has the host.
    func netrcCredentials(for url: URL) -> (String, String)? {
        guard let rule = rule(for: url), rule.netrc?.value == true, let host = url.host else { return nil }
        return netrc?.credentials(for: host)
    }
}
