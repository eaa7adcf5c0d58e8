// libFuzzer harness for HeaderLineParser: the input is a response's header lines, as libcurl hands them over.

@_cdecl("LLVMFuzzerTestOneInput")
public func headerLinesFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    var lines: [ArraySlice<UInt8>] = []
    while !input.isEmpty { lines.append(input.line()) }

    var parser = HeaderLineParser()
    var linesSinceStatus = 0
    var blankSinceStatus = false
    for line in lines {
        // The same line with CRLF (libcurl's form), LF or no terminator leaves the same state.
        let before = parser
        var withCRLF = before, withLF = before
        feed(&withCRLF, line + [13, 10])
        feed(&withLF, line + [10])
        feed(&parser, line)
        require(sameAfterOneLine(parser, withCRLF) && sameAfterOneLine(parser, withLF),
                "the line terminator changed the result for \(shown(line))")
        if let text = String(validating: line, as: UTF8.self) {
            var byString = before
            byString.feed(line: text)
            require(sameAfterOneLine(byString, parser), "feed(line:) and feed(bytes:) differ for \(shown(text))")
        }

        if line.starts(with: Array("HTTP/".utf8)) {
            linesSinceStatus = 0
            blankSinceStatus = false
        } else {
            linesSinceStatus += 1
            if line.allSatisfy({ $0 == 13 }) { blankSinceStatus = true }
        }
        require(parser.isComplete == blankSinceStatus, "isComplete is \(parser.isComplete) after \(shown(line))")
        require(parser.fields.count <= linesSinceStatus, "more fields than lines after \(shown(line))")
        if let status = parser.statusCode { require((100...999).contains(status), "status \(status)") }
        // One line adds or changes only the last field; checking that one keeps a long input linear.
        if let field = parser.fields.fields.last {
            require(!field.name.isEmpty && !field.name.contains(":"), "field name \(shown(field.name))")
            require(isTrimmed(field.name), "field name with surrounding blanks: \(shown(field.name))")
            require(isTrimmed(field.value), "field value with surrounding blanks: \(shown(field.value))")
        }
    }

    // A part's header block (multipart) gives the fields the same lines give one at a time.
    let block = lines.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\r\n")
    var oneByOne = HeaderLineParser()
    for line in lines { oneByOne.feed(line: String(decoding: line, as: UTF8.self)) }
    let fromBlock = HeaderLineParser.fields(ofBlock: block)
    require(fromBlock == oneByOne.fields, "fields(ofBlock:) differs from feeding \(shown(block)) line by line")
    return 0
}

private func feed(_ parser: inout HeaderLineParser, _ line: some Collection<UInt8>) {
    let bytes = Array(line)
    bytes.withUnsafeBytes { parser.feed(bytes: $0) }
}

/// Equal, for two parsers fed one line from the same state: everything but the last field is shared.
private func sameAfterOneLine(_ a: HeaderLineParser, _ b: HeaderLineParser) -> Bool {
    guard a.statusCode == b.statusCode, a.isComplete == b.isComplete, a.fields.count == b.fields.count else { return false }
    guard let x = a.fields.fields.last, let y = b.fields.fields.last else { return true }
    return x.name == y.name && x.value == y.value
}

private func isTrimmed(_ text: String) -> Bool {
    let blanks: Set<UInt8> = [32, 9]
    guard let first = text.utf8.first, let last = text.utf8.last else { return true }
    return !blanks.contains(first) && !blanks.contains(last)
}
