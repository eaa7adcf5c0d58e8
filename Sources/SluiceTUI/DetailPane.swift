// The selected task in full: request and response headers, status, type, length, chunks, parts, and its
// delegate timeline as readable lines.
import SluiceEngine
import SluiceStore
import SluiceViewModel

enum DetailPane {
    static func lines(_ row: TaskRow?, now: UInt64, scroll: Int, width: Int, ascii: Bool = false) -> [StyledLine] {
        guard let row else { return [StyledLine(" No task selected.", .help)] }
        var lines: [StyledLine] = []
        /// Label-value pairs flow across as many lines as they need; a value too long for a line of its own
        /// (a URL, libcurl's message, a path) wraps under its label instead of being cut.
        func pair(_ items: [(String, String)]) {
            var spans: [Span] = [Span(" ", .detailValue)]
            var used = 1
            func flush() {
                if used > 1 { lines.append(StyledLine(spans)) }
                spans = [Span(" ", .detailValue)]
                used = 1
            }
            for (label, value) in items where !value.isEmpty {
                let text = Sanitized.text(value)
                let needed = TextWidth.of(label) + 1 + TextWidth.of(text) + 2
                if used + needed > width { flush() }
                if used + needed <= width {
                    spans += [Span(label + " ", .detailLabel), Span(text + "  ", .detailValue)]
                    used += needed
                    continue
                }
                let indent = 1 + TextWidth.of(label) + 1
                let pieces = TextWidth.wrap(text, to: max(1, width - indent))
                spans += [Span(label + " ", .detailLabel), Span(pieces.first ?? "", .detailValue)]
                used = width
                flush()
                for piece in pieces.dropFirst() {
                    lines.append(StyledLine([Span(RepeatedText.of(" ", count: indent), .detailValue), Span(piece, .detailValue)]))
                }
            }
            flush()
        }
        pair([("task", "#\(row.id) \(row.kind.rawValue)"), ("name", row.name), ("host", row.host ?? "")])
        pair([("url", Redacted.url(row.url))])
        if let target = row.redirectedTo { pair([("redirected to", target)]) }
        var state = row.awaitingDisposition ? "awaiting disposition (r allow, c cancel, d download)" : row.stateWord
        if let words = row.failureWords { state += ": " + words[0] }
        if let next = row.becameTask { state += ", became download #\(next)" }
        if let from = row.cameFromTask { state += " (converted from #\(from))" }
        if let place = row.queuePosition, row.stateWord == "queued" { state += place == 1 ? ", next to start" : ", \(place) in line" }
        pair([("state", state)])
        if case .failed(let failure) = row.outcome { pair([("error", failure.detail)]) }
        let length = row.expected >= 0 ? ByteCountText.format(row.expected) : "unknown"
        pair([("status", row.status.map(String.init) ?? "-"), ("type", row.contentType ?? ""), ("length", length),
              ("received", ByteCountText.format(row.bytes)), ("chunks", String(row.chunks)),
              ("parts", row.parts > 0 ? String(row.parts) : ""), ("sent", row.sent > 0 ? ByteCountText.format(row.sent) : "")])
        if !row.throughput.perSecond.isEmpty {
            let label = " last minute "
            let peak = "  peak " + ByteCountText.format(row.throughput.peak) + "/s"
            let bars = row.throughput.sparkline(width: min(Throughput.span, width - TextWidth.of(label) - TextWidth.of(peak)), ascii: ascii)
            lines.append(StyledLine([Span(label, .detailLabel), Span(bars, .barFill), Span(peak, .detailValue)]))
        }
        if let last = row.metrics?.transactions.last { pair([("timing", MetricsText.timing(last))]) }
        if let path = row.savedPath { pair([("saved", path)]) }
        if let limit = row.rateLimit { pair([("limit", ByteCountText.rate(Double(limit)))]) }
        if !row.segments.isEmpty && !row.isFinished {  // last sampled while it ran: stale once it has ended
            let active = row.segments.filter(\.isActive).count
            let label = " segments "
            let count = "  \(active) of \(row.segments.count) connected"
            let map = SegmentMap.text(row.segments, width: max(4, min(60, width - TextWidth.of(label) - TextWidth.of(count))), ascii: ascii)
            lines.append(StyledLine([Span(label, .detailLabel), Span(map, .barFill), Span(count, .detailValue)]))
        }
        if let note = row.note { pair([("note", note)]) }
        header("Request headers", &lines)
        // Credentials and cookies (typed, or from a pasted command) are not put on a screen others may see.
        for h in row.requestHeaders { field(HeaderLine(h.name, Redacted.value(h.value, ofHeader: h.name)), &lines) }
        if row.requestHeaders.isEmpty { lines.append(StyledLine("  none added (libcurl sends Host, User-Agent, Accept, Accept-Encoding)", .help)) }
        header("Response headers", &lines)
        for h in row.responseHeaders { field(h, &lines) }
        header("Delegate timeline", &lines)
        for entry in row.timeline {
            let at = entry.time >= row.added ? "+" + Format.seconds(entry.time - row.added) : ""
            lines.append(StyledLine([Span("  " + TextWidth.fit(at, to: 9), .detailLabel),
                                     Span(Sanitized.text(entry.text), .timeline)]))
        }
        return Array(lines.dropFirst(min(scroll, max(0, lines.count - 1))))
    }

    private static func header(_ title: String, _ lines: inout [StyledLine]) {
        lines.append(StyledLine(" " + title, .header))
    }

    private static func field(_ h: HeaderLine, _ lines: inout [StyledLine]) {
        lines.append(StyledLine([Span("  " + Sanitized.text(h.name) + ": ", .detailLabel), Span(Sanitized.text(h.value), .detailValue)]))
    }
}
