// libFuzzer harness for DataURL: any text is a data: URL or nil without trapping, and the input's bytes come
// back unchanged from the URLs that carry them in base64 and in percent-escapes.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func dataURLFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))

    // The input as the URL's text.
    let text = String(decoding: bytes, as: UTF8.self)
    if let url = DataURL(text) {
        require(!url.mediaType.isEmpty, "empty media type from \(shown(text))")
        require(text.lowercased().hasPrefix("data:"), "\(shown(text)) is not a data: URL")
    }

    // The input as the body: base64 (padded or not, with line breaks or not) and percent-escapes give it back.
    let base64 = Data(bytes).base64EncodedString()
    for payload in [base64, String(base64.filter { $0 != "=" }), wrapped(base64)] {
        let url = DataURL("data:application/octet-stream;base64," + payload)
        require(url?.body == Data(bytes), "base64 \(shown(payload)) gave \(String(describing: url))")
        require(url?.mediaType == "application/octet-stream", "media type \(String(describing: url?.mediaType))")
    }
    let escaped = bytes.map { "%" + (($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: $0 & 1 == 0)) }.joined()
    let plain = DataURL("DATA:," + escaped)
    require(plain?.body == Data(bytes), "escapes \(shown(escaped)) gave \(String(describing: plain))")
    require(plain?.mediaType == "text/plain;charset=US-ASCII", "media type \(String(describing: plain?.mediaType))")
    return 0
}

/// Base64 broken into 76-character lines, as MIME writes it; a decoder must skip the breaks.
private func wrapped(_ base64: String) -> String {
    var out = "", count = 0
    for character in base64 {
        if count > 0 && count % 76 == 0 { out += "%0D%0A" }
        out.append(character)
        count += 1
    }
    return out
}
