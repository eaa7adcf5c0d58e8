// curl's -G: data sent as the URL's query instead of a body. Shared by `sluice get -G` and a pasted `curl -G`.

public enum URLQueryText {
    /// Whether `byte` may stand in a URL's query as it is (RFC 3986's pchar, `/` and `?`, and `%` of an escape).
    public static func isQueryByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "-._~!$&'()*+,;=:@/?%".utf8.contains(byte)
        }
    }

    /// `url` with `query` after its query (`?` or `&`, as curl), before its fragment (which libcurl never sends).
    public static func appending(_ query: String, to url: String) -> String {
        var text = url
        var fragment = ""
        if let hash = text.firstIndex(of: "#") {
            fragment = String(text[hash...])
            text = String(text[..<hash])
        }
        let joiner = text.contains("?") ? (text.hasSuffix("?") || text.hasSuffix("&") ? "" : "&") : "?"
        return text + joiner + query + fragment
    }
}
