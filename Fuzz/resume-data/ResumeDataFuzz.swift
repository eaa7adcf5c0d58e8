// libFuzzer harness for ResumeData: any bytes decode or give nil without trapping, what decodes encodes back
// to itself, and resume data made from any strings and numbers survives encoding.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func resumeDataFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Data(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))

    // The input as a resume data file.
    if let decoded = ResumeData.decode(bytes) {
        require(decoded.version == 1 && decoded.bytesOnDisk >= 0 && !decoded.path.isEmpty, "accepted \(decoded)")
        let again = ResumeData.decode(decoded.encoded())
        require(again.map { same($0, decoded) } == true, "\(decoded) encoded and decoded is \(String(describing: again))")
    }

    // The input as the fields: strings separated by NUL, then three numbers.
    var input = FuzzInput(bytes)
    let numbers = (input.int64(), input.int64(), input.int64())
    let texts = input.rest().split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    func text(_ i: Int) -> String? { i < texts.count ? texts[i] : nil }
    let original = ResumeData(url: text(0) ?? "", path: text(1) ?? "", bytesOnDisk: numbers.0, etag: text(2),
                              lastModified: text(3), expectedLength: numbers.2 & 1 == 0 ? nil : numbers.1)
    let decoded = ResumeData.decode(original.encoded())
    if original.bytesOnDisk >= 0 && !original.path.isEmpty {
        require(decoded.map { same($0, original) } == true, "\(original) came back as \(String(describing: decoded))")
    } else {
        require(decoded == nil, "\(original) should be refused, came back as \(String(describing: decoded))")
    }
    return 0
}

/// Equal field by field, strings scalar by scalar (a JSON round trip must not even normalize them).
private func same(_ a: ResumeData, _ b: ResumeData) -> Bool {
    func same(_ x: String?, _ y: String?) -> Bool {
        switch (x, y) {
        case (nil, nil): true
        case let (x?, y?): sameScalars(x, y)
        default: false
        }
    }
    return a == b && a.version == b.version && same(a.url, b.url) && same(a.path, b.path) && same(a.etag, b.etag)
        && same(a.lastModified, b.lastModified) && a.bytesOnDisk == b.bytesOnDisk && a.expectedLength == b.expectedLength
}
