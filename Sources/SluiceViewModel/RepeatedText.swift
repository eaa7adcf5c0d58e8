// A piece of text repeated, built as bytes: `String(repeating:count:)` appends the piece once per copy (some 270
// instructions each, callgrind), and every frame pads each line, draws each progress bar and lays out the
// sequence view with repeats.
public enum RepeatedText {
    /// `piece` `count` times (nothing for a count below one).
    public static func of(_ piece: String, count: Int) -> String {
        guard count > 0 else { return "" }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(piece.utf8.count * count)
        for _ in 0..<count { bytes.append(contentsOf: piece.utf8) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
