// Which command-line URLs sluice accepts: absolute http, https, file and data URLs.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SluiceEngine

public enum ParsedURL {
    /// Accepts absolute http, https, file and data URLs; anything else is refused before a transfer starts.
    public static func parse(_ text: String) -> URL? {
        guard let url = URL(string: text), let scheme = url.scheme else { return nil }
        // No lowercased copy of the scheme, and the host as written (not percent-decoded): this runs for every URL
        // of a list, and URL.host parses and decodes anew on each call.
        if scheme.caseInsensitiveEquals("http") || scheme.caseInsensitiveEquals("https") {
            guard let host = url.host(percentEncoded: true), !host.isEmpty else { return nil }
            return url
        }
        return scheme.caseInsensitiveEquals("file") || scheme.caseInsensitiveEquals("data") ? url : nil
    }
}
