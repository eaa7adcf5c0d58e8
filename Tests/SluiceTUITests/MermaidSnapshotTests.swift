// The Mermaid text of the sample flows, kept as fixtures that scripts/render-diagrams renders with the real
// mermaid.js: a conversion with a suspension (notes, a new lifeline) and a flow full of hostile server text.
import Foundation
import SluiceEngine
import SluiceViewModel
import Testing

@Suite struct MermaidSnapshotTests {
    /// Server text written to break a diagram: statement ends, a directive, HTML, a new line with a statement.
    static let hostile: SequenceSamples.Sample = SequenceSamples.log([(1, "/escape")], [
        (1, .stateChanged(.running), 0.1),
        (1, .didReceiveResponse(SequenceSamples.response("/escape", headers: ["Content-Type": "%%{init:{'theme':'forest'}}%%<b>#9829;"])), 0.2),
        (1, .disposition(.allow), 0.2),
        (1, .didCompleteWithError(TransferError(.badServerResponse, "bad;\n    Note over D: injected\n    end\n<script>alert(1)</script><img src=x onerror=alert(1)> $$x$$ `**b**` &amp; #35;")), 0.3),
    ])

    @Test(arguments: ["conversion", "hostile"])
    func matchesTheFixtureTheRenderScriptDraws(name: String) throws {
        let sample = name == "hostile" ? Self.hostile : SequenceSamples.conversion
        let text = MermaidWriter.text(sample.diagram, title: "sluice sample " + name)
        try SequenceLayoutTests().expectSnapshot(text, "mermaid-\(name)")
        #expect(!text.contains("<img") && !text.contains("\n    Note over D: injected"))
    }
}
