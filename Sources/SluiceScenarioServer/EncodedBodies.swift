// One text compressed three ways (made once with Python's gzip and zlib and the brotli tool), for the
// content-decoding scenarios: `/encoded/gzip`, `/encoded/deflate`, `/encoded/br`.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

public enum EncodedBodies {
    /// What every encoding decodes to.
    public static let text = String(repeating: "Sluice decodes what the server compressed. ", count: 40)

    static let encoded: [String: String] = [
        "gzip": "H4sIAAAAAAACAwvOKc1MTlVISU3OT0ktVijPSCxRKMlIVShOLSpLLVJIzs8tKEotLk5N0VMIHlU6qnRU6ajSUaWjSgdaKQAKwyYcuAYAAA==",
        "deflate": "eJwLzinNTE5VSElNzk9JLVYoz0gsUSjJSFUoTi0qSy1SSM7PLShKLS5OTdFTCB5VOqp0VOmo0lGlo0oHWikAPld81w==",
        "br": "H7cG+MVtbF3nb0x1BIUjakJKUcgwrUMW+8Ckar5pyIx8yA8Fs4f+IwE=",
    ]

    static func body(_ encoding: String) -> Data? { encoded[encoding].flatMap { Data(base64Encoded: $0) } }
}
