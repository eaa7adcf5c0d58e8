// The fuzzer's bytes read as the values a harness needs, and the check that stops the run when a property fails.

/// Reads lines and bytes from the front and small numbers from the back, so that libFuzzer's mutations of the
/// data rarely disturb the numbers that steer a harness (the shape of LLVM's FuzzedDataProvider).
struct FuzzInput {
    private var bytes: ArraySlice<UInt8>

    init(_ data: UnsafePointer<UInt8>?, _ size: Int) {
        bytes = data.map { ArraySlice(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    }

    init(_ bytes: some Sequence<UInt8>) { self.bytes = ArraySlice(bytes) }

    var isEmpty: Bool { bytes.isEmpty }

    /// The first byte, or 0 once the input is used up.
    mutating func byte() -> UInt8 { bytes.popFirst() ?? 0 }

    /// The last byte, or 0 once the input is used up.
    mutating func tailByte() -> UInt8 { bytes.popLast() ?? 0 }

    /// Up to `count` bytes from the back, in order.
    mutating func tail(_ count: Int) -> ArraySlice<UInt8> {
        let taken = bytes.suffix(count)
        bytes.removeLast(taken.count)
        return taken
    }

    /// The bytes up to the next line feed (which is consumed and not returned), or everything left.
    mutating func line() -> ArraySlice<UInt8> {
        guard let end = bytes.firstIndex(of: 10) else { return rest() }
        let taken = bytes[..<end]
        bytes = bytes[(end + 1)...]
        return taken
    }

    /// A 64-bit number from up to eight front bytes.
    mutating func int64() -> Int64 {
        var value: UInt64 = 0
        for _ in 0..<8 { value = value << 8 | UInt64(byte()) }
        return Int64(bitPattern: value)
    }

    mutating func rest() -> ArraySlice<UInt8> {
        defer { bytes = [] }
        return bytes
    }
}

/// Stops the process with a message when a property does not hold; libFuzzer saves the input that did it.
func require(_ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) {
    if !condition { fatalError("property failed: " + message(), file: file, line: line) }
}

/// The same scalars in the same order; String's `==` would also accept a different but equivalent spelling.
func sameScalars(_ a: some StringProtocol, _ b: some StringProtocol) -> Bool {
    a.unicodeScalars.elementsEqual(b.unicodeScalars)
}

/// Text for a failure message: the string with every scalar outside printable ASCII written as \u{...}.
func shown(_ text: some StringProtocol) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        if scalar.value >= 0x20 && scalar.value < 0x7F && scalar != "\\" && scalar != "\"" {
            out.unicodeScalars.append(scalar)
        } else {
            out += "\\u{" + String(scalar.value, radix: 16) + "}"
        }
    }
    return out + "\""
}

/// Bytes for a failure message, the first 200 of them (libFuzzer saves the whole input).
func shown(_ bytes: some Collection<UInt8>) -> String {
    "[" + bytes.prefix(200).map { String($0) }.joined(separator: ",") + (bytes.count > 200 ? ",...]" : "]")
}
