// The renderer's output: lines of text runs, each run named by the theme element that colours it.
import SluiceViewModel

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
        if used < width { out.append(Span(RepeatedText.of(" ", count: width - used), fill)) }
        return StyledLine(out)
    }
}

extension StyledLine {
    /// sluice's own drawing glyphs as ASCII of the same width, for a terminal whose locale is not UTF-8 (or the
    /// mono theme): bars, separators, arrows and the cut mark. Text from servers is left as it is.
    public func asciiGlyphs() -> StyledLine {
        StyledLine(spans.map { span in
            guard !span.text.utf8.allSatisfy({ $0 < 0x80 }) else { return span }
            var ascii = span
            ascii.text = String(String.UnicodeScalarView(span.text.unicodeScalars.map { Self.asciiGlyph[$0] ?? $0 }))
            return ascii
        })
    }

    private static let asciiGlyph: [Unicode.Scalar: Unicode.Scalar] = [
        "█": "#", "▓": "=", "░": "-", "·": ".", "…": "~", "→": ">", "←": "<", "─": "-", "│": "|",
        "▁": "_", "▂": "_", "▃": ".", "▄": "o", "▅": "o", "▆": "O", "▇": "O",
    ]
}
