// libFuzzer harness for ContentRange: what parses is a satisfiable range that reads back the same, and every
// well-formed header built from three numbers parses to them.

@_cdecl("LLVMFuzzerTestOneInput")
public func contentRangeFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    // The input as a header value.
    let text = String(decoding: UnsafeBufferPointer(start: data, count: data == nil ? 0 : size), as: UTF8.self)
    if let range = ContentRange.parse(text) {
        require(range.first >= 0 && range.last >= range.first, "bounds \(range) from \(shown(text))")
        if let total = range.total { require(total > range.last, "total \(total) within \(range) from \(shown(text))") }
        let canonical = header(range.first, range.last, range.total)
        require(ContentRange.parse(canonical) == range, "\(shown(canonical)) does not read back as \(range)")
    }

    // The input as three numbers and a spelling: a well-formed header parses exactly when the range is satisfiable.
    var input = FuzzInput(data, size)
    let spelling = input.byte()
    let first = input.int64(), last = input.int64(), total = input.int64()
    let known = spelling & 1 == 0
    var value = header(first, last, known ? total : nil)
    if spelling & 2 != 0 { value = "BYTES" + value.dropFirst(5) }
    if spelling & 4 != 0 { value = " \t" + value + "\t " }
    let satisfiable = first >= 0 && last >= first && (!known || total > last)
    let parsed = ContentRange.parse(value)
    if satisfiable {
        require(parsed == ContentRange(first: first, last: last, total: known ? total : nil), "\(shown(value)) gave \(String(describing: parsed))")
    } else {
        require(parsed == nil, "unsatisfiable \(shown(value)) gave \(String(describing: parsed))")
    }
    return 0
}

private func header(_ first: Int64, _ last: Int64, _ total: Int64?) -> String {
    "bytes \(first)-\(last)/" + (total.map(String.init) ?? "*")
}
