// The detail pane as a sequence diagram of the selected transfer: the lifelines' names stay on top and the arrows
// scroll under them, following the newest one unless the user scrolled back.
import SluiceViewModel

enum SequenceView {
    static let measure = TextMeasure(width: { TextWidth.of($0) }, cut: { TextWidth.truncate($0, to: $1) })

    /// Exactly `height` lines (or fewer when there is nothing to show): a title, the names, then the arrows that
    /// fit, `back` lines before the newest.
    static func lines(_ row: TaskRow?, flows: FlowLog, width: Int, height: Int, back: Int, ascii: Bool) -> [StyledLine] {
        guard let row else { return [StyledLine(" No task selected.", .help)] }
        let chain = flows.chain(containing: row.id)
        var title = " Sequence of #\(chain.first?.id ?? row.id) " + Sanitized.text(row.name) + " · " + row.stateWord
        if chain.count > 1, let last = chain.last { title += " (download #\(last.id))" }
        var lines = [StyledLine(ascii ? SequenceGlyphs.asciiText(title.replacing(" · ", with: " - ")) : title, .header)]
        guard !chain.isEmpty, height > 1 else { return Array(lines.prefix(max(0, height))) }
        let layout = SequenceLayout.make(SequenceDiagram.of([chain]), width: width, glyphs: ascii ? .ascii : .unicode,
                                         measure: measure)
        lines += layout.header.map { StyledLine([Span($0.time, .detailLabel), Span($0.art, .detailLabel)]) }
        let room = max(0, height - lines.count)
        guard !layout.body.isEmpty else { return lines + [StyledLine("  no delegate call yet", .help)] }
        let end = max(min(room, layout.body.count), layout.body.count - back)
        let shown = layout.body[max(0, end - room)..<end]
        for line in shown {
            let words: Element = switch line.kind {
            case .pending: .rowAwaiting
            case .gap: .help
            default: .detailValue
            }
            lines.append(StyledLine([Span(line.time, .detailLabel), Span(line.art, .timeline), Span(" " + line.label, words)]))
        }
        return lines
    }
}
