// libFuzzer harness for ThemeParser: any UTF-8 text is a theme or an error naming a line of the file, CRLF line
// ends read as LF ones, and a parsed theme written back out parses to the same theme.

@_cdecl("LLVMFuzzerTestOneInput")
public func themeFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))
    guard let text = String(validating: bytes, as: UTF8.self) else { return 0 }  // ThemeLoader refuses non-UTF-8
    let lineCount = bytes.count { $0 == 10 } + 1

    let result = parse(text)
    switch result {
    case .failure(let error):
        require(error.file == "fuzz.toml" && (1...lineCount).contains(error.line), "error \(error) for \(shown(text))")
        require(!error.message.isEmpty && error.description.hasPrefix("fuzz.toml:\(error.line): "), "error \(error)")
    case .success(let theme):
        let written = theme.styles.map { "\($0.key.rawValue) = \"\(words($0.value))\"" }.joined(separator: "\n")
        let again = parse(written)
        require(again == .success(theme), "\(shown(text)) gave \(theme), written as \(shown(written)) it gave \(again)")
    }

    // The same file saved with CRLF line ends.
    let crlf = String(decoding: bytes.flatMap { $0 == 10 ? [13, 10] : [$0] }, as: UTF8.self)
    let fromCRLF = parse(crlf)
    require(fromCRLF == result, "with CRLF \(shown(crlf)) gave \(fromCRLF), with LF \(result)")
    return 0
}

private func parse(_ text: String) -> Result<Theme, ThemeError> {
    Result { () throws(ThemeError) in try ThemeParser.parse(text, name: "fuzz", file: "fuzz.toml") }
}

/// A style as the words a theme file gives it.
private func words(_ style: Style) -> String {
    var words = [style.foreground.rawValue, "on", style.background.rawValue]
    if style.bold { words.append("bold") }
    if style.dim { words.append("dim") }
    if style.underline { words.append("underline") }
    if style.reverse { words.append("reverse") }
    return words.joined(separator: " ")
}
