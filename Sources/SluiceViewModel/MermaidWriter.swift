// A sequence diagram as Mermaid `sequenceDiagram` text, with the seed's names (URLSessionDelegate, the task's class,
// Server). Every word is escaped, so no text a server sent can end a line, start a statement or reach the page raw.

public enum MermaidWriter {
    /// The whole diagram; `title` is Sluice's own text (task numbers), never a server's.
    public static func text(_ diagram: SequenceDiagram, title: String) -> String {
        var lines = ["sequenceDiagram", "    title " + escape(title)]
        let ids = Dictionary(uniqueKeysWithValues: diagram.lifelines.map { ($0.lifeline, id($0.lifeline)) })
        for info in diagram.lifelines {
            lines.append("    participant \(id(info.lifeline)) as " + escape(info.seedName))
        }
        for step in diagram.steps {
            let from = ids[step.from] ?? "D", to = ids[step.to] ?? "D"
            let words = escape(clock(step.time &- diagram.start) + " " + (step.labels.first ?? ""))
            if let created = step.creates, let new = ids[created] {
                lines.append("    \(from)-)\(new): " + escape(clock(step.time &- diagram.start) + " the same transfer continues, no new request"))
            }
            switch step.shape {
            case .call: lines.append("    \(from)->>\(to): " + words)
            case .reply: lines.append("    \(from)-->>\(to): " + words)
            case .data(let via):
                if let via, let hop = ids[via] {
                    lines.append("    \(from)--)\(hop): " + escape(clock(step.time &- diagram.start) + " " + (step.firstHop ?? "body")))
                    lines.append("    \(hop)--)\(to): " + words)
                } else {
                    lines.append("    \(from)--)\(to): " + words)
                }
            case .note: lines.append("    Note over \(from): " + words)
            case .pending: lines.append("    Note over \(from),\(to): " + words)
            case .gap: lines.append("    Note over \(from),\(to): " + escape(step.labels.first ?? "…"))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Participant names Mermaid reads as identifiers: D, T5, S.
    static func id(_ lifeline: Lifeline) -> String {
        switch lifeline {
        case .delegate: "D"
        case .task(let n): "T\(n)"
        case .server: "S"
        }
    }

    /// "+0.012s": time since the first step.
    static func clock(_ nanoseconds: UInt64) -> String {
        String(SequenceLayout.time(nanoseconds, in: 9).drop { $0 == " " }.dropLast())
    }

    /// Letters, digits, spaces and harmless punctuation stay; everything else becomes a Mermaid entity code
    /// (`#58;` for a colon), which Mermaid shows as the character but never parses: no `;`, `#`, `%%` directive,
    /// `<br>` or HTML tag, and no line break, survives as syntax. Control characters are first shown as `\x1b`.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in Sanitized.text(text).unicodeScalars {
            if isPlain(scalar) {
                out.unicodeScalars.append(scalar)
            } else {
                out += "#\(scalar.value);"
            }
        }
        return out
    }

    private static func isPlain(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true  // digits and ASCII letters
        default: " .,_/()?!=+-[]'*@".unicodeScalars.contains(s)
        }
    }
}
