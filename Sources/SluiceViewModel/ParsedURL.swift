// Which command-line URLs sluice accepts: absolute http, https, file and data URLs.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SluiceEngine

public enum ParsedURL {
    /// Accepts absolute http, https, file and data URLs, and a URL without its scheme as http (`example.org/f`,
    /// `127.0.0.1:8080/x`), as curl and wget take it; anything else is refused before a transfer starts.
    public static func parse(_ text: String) -> URL? {
        if let url = parseAbsolute(text) { return url }
        return withGuessedScheme(text).flatMap(parseAbsolute)
    }

    /// `http://` + `text` when `text` has no scheme and starts with what can only be a host (letters, digits, dots
    /// and hyphens, not starting with a dot or hyphen), maybe with a port: curl's guess for such a URL.
    static func withGuessedScheme(_ text: String) -> String? {
        guard !text.contains("://") else { return nil }
        let head = text.utf8.prefix { $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }
        var host = Substring(head)
        if let colon = host.lastIndex(of: ":") {
            let port = host[host.index(after: colon)...]
            guard !port.isEmpty, port.count <= 5, port.allSatisfy(\.isASCII), port.allSatisfy(\.isNumber) else { return nil }
            host = host[..<colon]
        }
        guard let first = host.utf8.first, isAlphanumeric(first),
              host.utf8.allSatisfy({ isAlphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }) else { return nil }
        // A bare word is more likely a mistyped command (`sluice hsitory`) than a host: it needs a dot, a port or a path.
        guard head.count < text.utf8.count || host.count < head.count || host.contains(".") || host == "localhost" else { return nil }
        return "http://" + text
    }

    private static func parseAbsolute(_ text: String) -> URL? {
        guard let url = URL(string: text), let scheme = url.scheme else { return nil }
        // No lowercased copy of the scheme, and the host as written (not percent-decoded): this runs for every URL
        // of a list, and URL.host parses and decodes anew on each call.
        if scheme.caseInsensitiveEquals("http") || scheme.caseInsensitiveEquals("https") {
            guard let host = url.host(percentEncoded: true), !host.isEmpty else { return nil }
            return url
        }
        return scheme.caseInsensitiveEquals("file") || scheme.caseInsensitiveEquals("data") ? url : nil
    }
    /// Whether `text` is an http or https URL of the plainest kind, one `parse` is certain to accept as written: a
    /// host of letters, digits, dots and hyphens starting with a letter or digit, an optional port up to 65535, then
    /// a path and query of RFC 3986's unreserved characters, sub-delimiters, `:@/?` and well-formed percent escapes
    /// (no fragment, no user, no IP literal). One pass over the bytes, a few hundred instructions for a typical URL
    /// where `parse` costs about 5,000: a list of thousands is checked with this, and each URL parsed as its
    /// transfer starts. False says nothing: such a text must be parsed to be judged.
    public static func isPlainWeb(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { isPlainWeb(bytes: $0) }
    }

    private static func isPlainWeb(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        let n = bytes.count
        func skip(_ literal: StaticString) -> Bool {
            let count = literal.utf8CodeUnitCount
            guard n - i >= count else { return false }
            for k in 0..<count {
                let b = bytes[i + k]
                if (b >= 65 && b <= 90 ? b | 0x20 : b) != literal.utf8Start[k] { return false }
            }
            i += count
            return true
        }
        guard skip("http://") || skip("https://") else { return false }
        guard i < n, isAlphanumeric(bytes[i]) else { return false }
        while i < n, isAlphanumeric(bytes[i]) || bytes[i] == UInt8(ascii: ".") || bytes[i] == UInt8(ascii: "-") { i += 1 }
        if i < n, bytes[i] == UInt8(ascii: ":") {
            i += 1
            var port = 0
            var digits = 0
            while i < n, bytes[i] >= 48, bytes[i] <= 57 {
                port = port * 10 + Int(bytes[i] - 48)
                digits += 1
                guard digits <= 5 else { return false }
                i += 1
            }
            guard digits > 0, port <= 65535 else { return false }
        }
        guard i == n || bytes[i] == UInt8(ascii: "/") || bytes[i] == UInt8(ascii: "?") else { return false }
        while i < n {
            if bytes[i] == UInt8(ascii: "%") {
                guard n - i >= 3, isHexDigit(bytes[i + 1]), isHexDigit(bytes[i + 2]) else { return false }
                i += 3
                continue
            }
            guard isPathCharacter(bytes[i]) else { return false }
            i += 1
        }
        return true
    }

    private static func isAlphanumeric(_ b: UInt8) -> Bool {
        (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122)
    }

    private static func isHexDigit(_ b: UInt8) -> Bool {
        (b >= 48 && b <= 57) || (b >= 65 && b <= 70) || (b >= 97 && b <= 102)
    }

    /// Unreserved (letters, digits, `-._~`), sub-delimiters (`!$&'()*+,;=`) and `:@/?`.
    private static func isPathCharacter(_ b: UInt8) -> Bool {
        if isAlphanumeric(b) { return true }
        switch b {
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),
             UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
             UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
             UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "/"), UInt8(ascii: "?"):
            return true
        default:
            return false
        }
    }
}
