// A sequence diagram as lines of terminal text: a clock column, the lifelines with one arrow per line, and the
// arrow's words to the right, where they have room. Pure: a diagram and a width in, lines out.

/// The characters the diagram is drawn with: box drawing, or plain ASCII for the mono theme and terminals whose
/// locale is not UTF-8.
public struct SequenceGlyphs: Equatable, Sendable {
    let line, gapLine, call, reply, data, headRight, headLeft, originRight, originLeft, cross, dataCross, note, pending,
        start: Character
    public let isASCII: Bool

    public static let unicode = SequenceGlyphs(line: "│", gapLine: "┆", call: "─", reply: "╌", data: "═", headRight: "▶",
                                               headLeft: "◀", originRight: "├", originLeft: "┤", cross: "┼", dataCross: "╪",
                                               note: "●", pending: "?", start: "┬", isASCII: false)
    public static let ascii = SequenceGlyphs(line: "|", gapLine: ":", call: "-", reply: ".", data: "=", headRight: ">",
                                             headLeft: "<", originRight: "+", originLeft: "+", cross: "+", dataCross: "+",
                                             note: "*", pending: "?", start: "+", isASCII: true)

    /// `text` in ASCII: the diagram's own symbols spelled out, anything else a `?`.
    public static func asciiText(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "×": out += "x"
            case "→": out += "->"
            case "…": out += "..."
            default: out += scalar.isASCII ? String(scalar) : "?"
            }
        }
        return out
    }
}

/// How many columns text takes and how to cut it; the terminal passes its own (wide characters take two).
public struct TextMeasure: Sendable {
    public let width: @Sendable (String) -> Int
    /// At most that many columns, marked where it was cut.
    public let cut: @Sendable (String, Int) -> String

    public init(width: @escaping @Sendable (String) -> Int, cut: @escaping @Sendable (String, Int) -> String) {
        self.width = width
        self.cut = cut
    }

    /// One column per Unicode scalar: exact for ASCII.
    public static let scalars = TextMeasure(width: { $0.unicodeScalars.count }, cut: { cutScalars($0, $1, mark: "…") })
    static let ascii = TextMeasure(width: { $0.unicodeScalars.count }, cut: { cutScalars($0, $1, mark: "...") })

    static func cutScalars(_ text: String, _ width: Int, mark: String) -> String {
        let scalars = text.unicodeScalars
        guard scalars.count > width else { return text }
        let keep = width - mark.unicodeScalars.count
        guard keep > 0 else { return String(String.UnicodeScalarView(scalars.prefix(max(0, width)))) }
        return String(String.UnicodeScalarView(scalars.prefix(keep))) + mark
    }
}

/// One line of the drawn diagram: the clock, the lifelines with the arrow, the words.
public struct SequenceLine: Equatable, Sendable {
    public enum Kind: Equatable, Sendable { case names, call, reply, data, note, pending, gap }
    public let kind: Kind
    /// Exactly the layout's clock width (empty when the clock was dropped for room).
    public let time: String
    /// The lifelines and the arrow; on the names line, the names (and whatever room follows).
    public let art: String
    public let label: String

    public var text: String { time + art + (label.isEmpty ? "" : " " + label) }
}

public struct SequenceLayout: Equatable, Sendable {
    /// The lifelines' names: drawn above the body, which scrolls under them.
    public let header: [SequenceLine]
    public let body: [SequenceLine]

    /// Lays `diagram` out in `width` columns. The lifelines share what the words leave them (at least three
    /// columns apart); the words take the longest of their forms that fits, else the shortest cut; below about 30
    /// columns the clock goes.
    public static func make(_ diagram: SequenceDiagram, width: Int, glyphs: SequenceGlyphs,
                            measure given: TextMeasure = .scalars) -> SequenceLayout {
        let measure = glyphs.isASCII ? TextMeasure.ascii : given
        func text(_ s: String) -> String { glyphs.isASCII ? SequenceGlyphs.asciiText(s) : s }
        let n = max(2, diagram.lifelines.count)
        var timeWidth = width >= 60 ? 9 : 6
        if width - timeWidth - ((n - 1) * 3 + 2) - 1 < 8 { timeWidth = 0 }
        let wordsWanted = max(10, (width - timeWidth) / 2)
        let gap = min(12, max(3, (width - timeWidth - 3 - wordsWanted) / (n - 1)))
        let artWidth = (n - 1) * gap + 2
        let wordsWidth = max(0, width - timeWidth - artWidth - 1)
        func x(_ i: Int) -> Int { 1 + i * gap }
        let index = Dictionary(uniqueKeysWithValues: diagram.lifelines.enumerated().map { ($1.lifeline, $0) })

        func words(_ step: SequenceStep) -> String {
            guard wordsWidth > 0 else { return "" }
            let forms = step.labels.map(text)
            if let fits = forms.indices.first(where: { measure.width(forms[$0]) <= wordsWidth }) {
                // A URL cut short says more than the bare method ("GET /redirect/2?status=301&to=%2Fdr…", not "GET").
                if step.namesURL, fits == forms.count - 1, forms.count > 1, wordsWidth >= 12 {
                    return measure.cut(forms[forms.count - 2], wordsWidth)
                }
                return forms[fits]
            }
            return measure.cut(forms.last ?? "", wordsWidth)
        }

        // The names line: each name as near the middle of its lifeline as the names before it allow (the first may
        // reach into the clock's column), a space between two names.
        var names = ""
        var cursor = 0
        let room = width
        for (i, info) in diagram.lifelines.enumerated() {
            let middle = timeWidth + x(i)
            let limit = i + 1 < diagram.lifelines.count ? timeWidth + x(i + 1) - 1 : room
            var placed: (start: Int, name: String)?
            for name in info.names.map(text) {
                let w = measure.width(name)
                let start = max(cursor, middle - w / 2)
                if start + w <= limit {
                    placed = (start, name)
                    break
                }
            }
            if placed == nil, let shortest = info.names.last.map(text), limit - cursor > 0 {
                placed = (cursor, measure.cut(shortest, limit - cursor))
            }
            guard let (start, name) = placed else { continue }
            names += RepeatedText.of(" ", count: start - cursor) + name
            cursor = start + measure.width(name) + 1
            names += " "
        }
        let header = [SequenceLine(kind: .names, time: "", art: String(names.dropLast()), label: "")]

        var body: [SequenceLine] = []
        body.reserveCapacity(diagram.steps.count)
        for (row, step) in diagram.steps.enumerated() {
            var cells = [Character](repeating: " ", count: artWidth)
            for (i, info) in diagram.lifelines.enumerated() where info.isActive(at: row) {
                let starts = info.firstStep == row && row > 0
            cells[x(i)] = step.shape == .gap ? glyphs.gapLine : starts ? glyphs.start : glyphs.line
            }
            let from = index[step.from].map(x) ?? 0
            let to = index[step.to].map(x) ?? 0
            let kind: SequenceLine.Kind
            switch step.shape {
            case .note:
                cells[from] = glyphs.note
                kind = .note
            case .pending:
                cells[from] = glyphs.pending
                kind = .pending
            case .gap:
                kind = .gap
            case .call, .reply, .data:
                let isData = step.shape != .call && step.shape != .reply
                let stroke = step.shape == .call ? glyphs.call : step.shape == .reply ? glyphs.reply : glyphs.data
                let (lo, hi) = (min(from, to), max(from, to))
                if hi > lo + 1 {
                    for c in (lo + 1)..<hi { cells[c] = cells[c] == " " ? stroke : isData ? glyphs.dataCross : glyphs.cross }
                }
                cells[from] = to > from ? glyphs.originRight : glyphs.originLeft
                if hi > lo + 1 { cells[to > from ? to - 1 : to + 1] = to > from ? glyphs.headRight : glyphs.headLeft }
                kind = step.shape == .call ? .call : step.shape == .reply ? .reply : .data
            }
            let clock = timeWidth > 0 ? time(step.time &- diagram.start, in: timeWidth) : ""
            body.append(SequenceLine(kind: kind, time: clock, art: String(cells), label: words(step)))
        }
        return SequenceLayout(header: header, body: body)
    }

    /// "+0.012s " in nine columns, "0.01s " in six: seconds since the first step.
    static func time(_ nanoseconds: UInt64, in width: Int) -> String {
        let ms = nanoseconds / 1_000_000
        let text: String
        if width >= 9 {
            switch ms {
            case ..<10_000: text = "+\(ms / 1000)." + String(ms % 1000).leftPadded(to: 3) + "s"
            case ..<100_000: text = "+\(ms / 1000)." + String(ms % 1000 / 10).leftPadded(to: 2) + "s"
            case ..<1_000_000: text = "+\(ms / 1000)." + String(ms % 1000 / 100) + "s"
            default: text = "+\(ms / 1000)s"
            }
        } else {
            switch ms {
            case ..<10_000: text = "\(ms / 1000)." + String(ms % 1000 / 10).leftPadded(to: 2) + "s"
            case ..<100_000: text = "\(ms / 1000)." + String(ms % 1000 / 100) + "s"
            default: text = "\(ms / 1000)s"
            }
        }
        let cell = width - 1
        let fitted = text.count > cell ? String(text.suffix(cell)) : RepeatedText.of(" ", count: cell - text.count) + text
        return fitted + " "
    }
}
