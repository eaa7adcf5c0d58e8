// Which command-line URLs sluice accepts: absolute http, https, file and data URLs.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

public enum ParsedURL {
    /// Accepts absolute http, https, file and data URLs; anything else is refused before a transfer starts.
    public static func parse(_ text: String) -> URL? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
              ["http", "https", "file", "data"].contains(scheme) else { return nil }
        if scheme == "http" || scheme == "https" {
            guard let host = url.host, !host.isEmpty else { return nil }
        }
        return url
    }
}
