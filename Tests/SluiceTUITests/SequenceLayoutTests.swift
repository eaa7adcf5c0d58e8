// The sequence view: snapshots of the pure layout at several widths and in ASCII, and what must hold at every
// width (fits, lifelines, folded chunks, a conversion's new lifeline, live growth, scrolling, hostile text).
import Foundation
import SluiceEngine
@testable import SluiceTUI
import SluiceViewModel
import Testing

@Suite struct SequenceLayoutTests {
    func layout(_ sample: SequenceSamples.Sample, _ width: Int, ascii: Bool = false) -> SequenceLayout {
        SequenceLayout.make(sample.diagram, width: width, glyphs: ascii ? .ascii : .unicode, measure: SequenceView.measure)
    }

    func text(_ l: SequenceLayout) -> String { (l.header + l.body).map(\.text).joined(separator: "\n") + "\n" }

    /// Compares with Snapshots/NAME.txt; SLUICE_RECORD_SNAPSHOTS=1 writes it instead (and fails, to be reviewed).
    func expectSnapshot(_ text: String, _ name: String) throws {
        if ProcessInfo.processInfo.environment["SLUICE_RECORD_SNAPSHOTS"] == "1" {
            _ = FileManager.default.createFile(atPath: fixturePath(name), contents: Data(text.utf8))
            Issue.record("recorded Snapshots/\(name).txt")
            return
        }
        let expected = try #require(fixture(name), "missing Snapshots/\(name).txt (SLUICE_RECORD_SNAPSHOTS=1 records it)")
        #expect(text == expected)
    }

    @Test(arguments: [120, 80, 40])
    func aConversionMatchesItsSnapshot(width: Int) throws {
        try expectSnapshot(text(layout(SequenceSamples.conversion, width)), "sequence-conversion-\(width)")
    }

    @Test func theMonoThemeAndPlainLocalesGetASCII() throws {
        let drawn = text(layout(SequenceSamples.conversion, 80, ascii: true))
        #expect(drawn.unicodeScalars.allSatisfy { $0.isASCII }, "\(drawn)")
        try expectSnapshot(drawn, "sequence-conversion-80-ascii")
    }

    @Test func redirectsAFailureAMultipartStreamAndAnOpenQuestionMatchTheirSnapshots() throws {
        try expectSnapshot(text(layout(SequenceSamples.redirectsThenFailure, 80)), "sequence-redirects-80")
        try expectSnapshot(text(layout(SequenceSamples.multipart, 80)), "sequence-multipart-80")
        try expectSnapshot(text(layout(SequenceSamples.awaiting, 80)), "sequence-awaiting-80")
    }

    @Test func everyLineFitsAtEveryWidth() {
        for sample in [SequenceSamples.conversion, SequenceSamples.redirectsThenFailure, SequenceSamples.multipart, SequenceSamples.awaiting] {
            for width in 20...200 {
                for ascii in [false, true] {
                    for line in layout(sample, width, ascii: ascii).body + layout(sample, width, ascii: ascii).header {
                        #expect(TextWidth.of(line.text) <= width, "\(width): \(line.text)")
                    }
                }
            }
        }
    }

    @Test func theFlowReadsInOrderWithLifelinesForDelegateTaskAndServer() throws {
        let l = layout(SequenceSamples.conversion, 200)
        let names = try #require(l.header.first?.text)
        for name in ["delegate", "data task 5", "download task 7", "server 127.0.0.1:8080"] { #expect(names.contains(name), "\(names)") }
        let labels = l.body.map(\.label)
        #expect(labels.first?.hasPrefix("GET http://127.0.0.1:8080/drip?") == true)
        #expect(labels.contains("urlSession(_:dataTask:didReceive:completionHandler:)"), "the disposition asked")
        #expect(labels.contains("completionHandler(.allow)"), "and answered")
        #expect(labels.contains { $0.hasPrefix("urlSession(_:dataTask:didReceive:) ×300, 4.7 MiB") }, "300 chunks, one line")
        #expect(labels.contains { $0.hasPrefix("urlSession(_:dataTask:didReceive:) ×50,") }, "a suspension breaks the run")
        #expect(labels.contains("suspend()") && labels.contains("resume()"))
        #expect(labels.contains { $0.hasPrefix("urlSession(_:downloadTask:didWriteData:…) ×100") })
        #expect(labels.last == "urlSession(_:task:didCompleteWithError:) nil")
        // request, response, asked, answered, 300 chunks, suspend, resume, 50 chunks, became, written, file, metrics, end
        #expect(l.body.count == 13, "\(labels)")
    }

    @Test func aConversionStartsTheDownloadsLifelineWhereItHappens() throws {
        let l = layout(SequenceSamples.conversion, 80)
        let art = l.body.map { Array($0.art) }
        let became = try #require(l.body.firstIndex { $0.label.contains("didBecome") })
        let column = try #require(art[became].firstIndex(of: "┬"), "a new lifeline starts on the conversion's line")
        for line in art[..<became] { #expect(!["│", "┬", "├", "┤"].contains(line[column]), "no download lifeline before: \(String(line))") }
        for line in art[(became + 1)...] { #expect(line[column] != " ", "the download's lifeline runs on: \(String(line))") }
        // The data task's lifeline ends at the conversion.
        let dataColumn = try #require(art[0].firstIndex(of: "├"))
        for (i, line) in art.enumerated() where i > became && l.body[i].kind != .data {
            #expect(line[dataColumn] == " " || line[dataColumn] == "─" || line[dataColumn] == "╌", "\(String(line))")
        }
    }

    @Test func redirectsShowEachRequestAndEachQuestion() {
        let labels = layout(SequenceSamples.redirectsThenFailure, 200).body.map(\.label)
        #expect(labels.filter { $0.hasPrefix("GET ") }.count == 3)
        #expect(labels.filter { $0 == "urlSession(_:task:willPerformHTTPRedirection:newRequest:completionHandler:)" }.count == 2)
        #expect(labels.contains("301 Moved Permanently, Location http://127.0.0.1:8080/bytes/3000000?drop=1500000"))
        #expect(labels.last?.contains("networkConnectionLost: transfer closed with 1500000 bytes remaining") == true)
    }

    @Test func aURLTooLongForItsLineIsCutNotDropped() {
        let l = layout(SequenceSamples.conversion, 80)
        let request = l.body[0].label
        #expect(request.hasPrefix("GET /drip?bytes=16000000") && request.hasSuffix("…"), "\(request)")
    }

    @Test func itGrowsLive() {
        var events = SequenceSamples.awaiting.events
        let before = SequenceLayout.make(SequenceSamples.Sample(events: events).diagram, width: 80, glyphs: .unicode)
        #expect(before.body.last?.kind == .pending && before.body.last?.label == "awaiting the delegate's completionHandler")
        func add(_ event: TaskEvent, _ seconds: Double) {
            events.append(.engine(TaskEventRecord(taskIdentifier: 3, uptimeNanoseconds: SequenceSamples.at(seconds), event: event)))
        }
        add(.disposition(.allow), 1)
        add(.didReceiveData(bytes: 1000), 1.1)
        let one = SequenceLayout.make(SequenceSamples.Sample(events: events).diagram, width: 80, glyphs: .unicode)
        #expect(!one.body.contains { $0.kind == .pending }, "answered")
        add(.didReceiveData(bytes: 1000), 1.2)
        let two = SequenceLayout.make(SequenceSamples.Sample(events: events).diagram, width: 80, glyphs: .unicode)
        #expect(two.body.count == one.body.count, "another chunk folds into the same line")
        #expect(two.body.last?.label.contains("×2, 2.0 KiB") == true, "\(two.body.last?.label ?? "")")
    }

    @Test func theViewFollowsTheNewestLineAndScrollsBack() throws {
        let sample = SequenceSamples.conversion
        let row = try #require(sample.model.row(7))
        let newest = SequenceView.lines(row, flows: sample.flows, width: 80, height: 6, back: 0, ascii: false).map(\.text)
        #expect(newest.count == 6)
        #expect(newest[0].hasPrefix(" Sequence of #5 worth-converting.bin"))
        #expect(newest[1].contains("delegate"), "the names stay on top")
        #expect(newest.last?.contains("didCompleteWithError nil") == true)
        let back = SequenceView.lines(row, flows: sample.flows, width: 80, height: 6, back: 3, ascii: false).map(\.text)
        #expect(back[5] == newest[2], "three lines back")
        let top = SequenceView.lines(row, flows: sample.flows, width: 80, height: 6, back: 1000, ascii: false).map(\.text)
        #expect(top[2].contains("GET /drip?"), "scrolled to the first line, no further")
    }

    @Test func serverTextIsSanitizedBeforeItIsLaidOut() {
        let evil = SequenceSamples.log([(1, "/escape")], [
            (1, .stateChanged(.running), 0.1),
            (1, .didReceiveResponse(SequenceSamples.response("/escape", headers: ["Content-Type": "te\u{1B}[2Jxt/\u{07}html"])), 0.2),
            (1, .didCompleteWithError(TransferError(.badServerResponse, "bad\r\nline\u{1B}]0;owned\u{07}")), 0.3),
        ])
        for width in [40, 80, 200] {
            for line in layout(evil, width).body {
                #expect(!line.text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, "\(line.text)")
            }
        }
        #expect(layout(evil, 200).body.contains { $0.label.contains("\\x1b[2jxt/\\x07html") })
    }
}

@Suite struct SequenceScreenTests {
    func screen(_ width: Int, _ height: Int, ui: UIState) -> [StyledLine] {
        let sample = SequenceSamples.conversion
        var model = sample.model
        model.select(7)
        return Renderer.render(model: model, ui: ui, width: width, height: height, flows: sample.flows)
    }

    @Test(arguments: [(80, 24), (40, 10), (120, 40), (20, 5)])
    func theSequenceViewFillsTheScreenExactly(size: (Int, Int)) {
        for pane in [UIState.Pane.list, .detail] {
            var ui = UIState()
            ui.detailView = .sequence
            ui.pane = pane
            let lines = screen(size.0, size.1, ui: ui)
            #expect(lines.count == size.1)
            for line in lines { #expect(TextWidth.of(line.text) == size.0, "\(line.text)") }
        }
    }

    @Test(arguments: ["80x24", "40x10"])
    func matchesTheSnapshot(name: String) throws {
        let size = name.split(separator: "x").compactMap { Int($0) }
        var ui = UIState()
        ui.detailView = .sequence
        ui.pane = size[1] >= 16 ? .list : .detail  // 80x24 shows list and diagram; 40x10 the diagram alone
        let text = snapshotText(screen(size[0], size[1], ui: ui))
        try SequenceLayoutTests().expectSnapshot(text, "sequence-screen-\(name)")
    }

    @Test func monoDrawsTheWholeScreenInASCIIWhereTheDiagramIs() {
        var ui = UIState()
        ui.detailView = .sequence
        ui.pane = .detail
        ui.asciiArt = true
        let body = screen(80, 24, ui: ui).dropFirst().dropLast()
        #expect(body.allSatisfy { $0.text.unicodeScalars.allSatisfy { $0.isASCII } }, "\(body.map(\.text))")
    }
}
