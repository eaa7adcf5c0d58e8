// The renderer's output: lines of text runs, each run named by the theme element that colours it.

public struct Span: Equatable, Sendable {
    public var text: String
    public var element: Element
    public init(_ text: String, _ element: Element) {
        self.text = text
        self.element = element
    }
}

public struct StyledLine: Equatable, Sendable {
    public var spans: [Span]
    public init(_ spans: [Span]) { self.spans = spans }
    public init(_ text: String, _ element: Element) { spans = [Span(text, element)] }
    public var text: String { spans.map(\.text).joined() }

    /// Pads or cuts to exactly `width` columns, so that every line repaints the whole row.
    func fitted(to width: Int, fill: Element) -> StyledLine {
        var out: [Span] = []
        var used = 0
        for span in spans where used < width {
            let w = TextWidth.of(span.text)
            if used + w <= width {
                out.append(span)
                used += w
            } else {
                let cut = TextWidth.truncate(span.text, to: width - used)
                out.append(Span(cut, span.element))
                used += TextWidth.of(cut)
            }
        }
        if used < width { out.append(Span(String(repeating: " ", count: width - used), fill)) }
        return StyledLine(out)
    }
}
