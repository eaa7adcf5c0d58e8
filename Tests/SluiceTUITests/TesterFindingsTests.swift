// What a tester found on screen and the renderer now says: the quit question when nothing runs, an error page's
// bytes, a finished split download's ranges, the note of a file saved under the server's name.
import Foundation
import SluiceEngine
@testable import SluiceTUI
import SluiceViewModel
import Testing

@Suite struct TesterFindingsTests {
    private func download(_ events: [ModelEvent]) -> Model {
        var m = Model()
        m.apply(.added(id: 1, url: "http://h/2000", kind: .download, requestHeaders: [], at: 0))
        for event in events { m.apply(event) }
        return m
    }

    /// With only a suspended download, `q` asked "Transfers are still running" and promised it would resume.
    @Test func theQuitQuestionSaysWhenNothingRuns() {
        var ui = UIState()
        ui.mode = .confirmQuit
        ui.quitKeepsDownloads = true
        let running = download([engine(1, .stateChanged(.running), at: 0.1)])
        let asked = Renderer.render(model: running, ui: ui, width: 200, height: 20).last?.text ?? ""
        #expect(asked.hasPrefix("Transfers are still running. Quit? Downloads resume next time"), "\(asked)")
        var parked = running
        parked.apply(engine(1, .stateChanged(.suspended), at: 0.2))
        let parkedAsk = Renderer.render(model: parked, ui: ui, width: 200, height: 20).last?.text ?? ""
        #expect(parkedAsk.hasPrefix("Tasks are suspended or waiting their turn. Quit? Downloads are kept for next time"), "\(parkedAsk)")
    }

    /// "failed HTTP 500 100% 11 B": the error page's 11 bytes read as the whole file.
    @Test func anErrorPageIsNoProgress() {
        let url = URL(string: "http://h/2000")!
        let m = download([engine(1, .stateChanged(.running), at: 0.1),
                          engine(1, .didReceiveResponse(Response(url: url, statusCode: 500, headers: [:], expectedContentLength: 11)), at: 0.2),
                          engine(1, .didWriteData(bytes: 11, total: 11, expected: 11), at: 0.3),
                          engine(1, .stateChanged(.completed), at: 0.4), engine(1, .didCompleteWithError(nil), at: 0.4)])
        let line = Renderer.render(model: m, ui: UIState(), width: 120, height: 20).map(\.text).first { $0.hasPrefix("#1 ") } ?? ""
        #expect(line.contains("HTTP 500") && !line.contains("100%"), "\(line)")
    }

    /// A split download finished after a restart kept the ranges last sampled ("0 of 4 connected", two fifths empty).
    @Test func aFinishedDownloadShowsNoRanges() {
        var m = download([engine(1, .stateChanged(.running), at: 0.1)])
        m.apply(.segments(id: 1, [DownloadSegment(start: 0, end: 50, next: 20, isActive: false),
                                  DownloadSegment(start: 50, end: 100, next: 100, isActive: false)]))
        let running = DetailPane.lines(m.row(1), now: 0, scroll: 0, width: 120, ascii: false).map(\.text)
        #expect(running.contains { $0.contains("segments") })
        m.apply(engine(1, .stateChanged(.completed), at: 0.5))
        m.apply(engine(1, .didCompleteWithError(nil), at: 0.5))
        let ended = DetailPane.lines(m.row(1), now: 0, scroll: 0, width: 120, ascii: false).map(\.text)
        #expect(!ended.contains { $0.contains("segments") }, "\(ended)")
    }

    /// "saved …/fromcurl.bin" and "note saving to …/2000" side by side: the server named the file.
    @Test func theSavingToNoteGoesOnceTheFileIsSaved() {
        var m = download([.note(id: 1, Model.savingTo + "/d/2000")])
        #expect(m.row(1)?.note == "saving to /d/2000")
        m.apply(.saved(id: 1, path: "/d/fromcurl.bin"))
        #expect(m.row(1)?.note == nil && m.row(1)?.savedPath == "/d/fromcurl.bin")
        var other = download([.note(id: 1, "resumed from /d/2000.sluice-part")])
        other.apply(.saved(id: 1, path: "/d/2000"))
        #expect(other.row(1)?.note == "resumed from /d/2000.sluice-part", "another note stays")
    }

    /// A theme with bad bytes on line 6 was reported at line 1.
    @Test func bytesThatAreNotUTF8AreNamedByTheirLine() throws {
        #expect(TOMLSubset.firstLineNotUTF8(Array("a\nb\n".utf8)) == nil)
        #expect(TOMLSubset.firstLineNotUTF8(Array("a\nb\n".utf8) + [0xFF] + Array("\nc".utf8)) == 3)
        #expect(TOMLSubset.firstLineNotUTF8(Array("é\n".utf8) + [0xC3]) == 2, "a sequence cut at the end")
        let path = NSTemporaryDirectory() + "bad-\(UUID().uuidString).toml"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try (Data("[colors]\n# one\n# two\n# three\n# four\n".utf8) + Data([0x23, 0xFF, 0x0A])).write(to: URL(fileURLWithPath: path))
        #expect(throws: ThemeError(file: path, line: 6, message: "the file is not UTF-8 text")) { try ThemeLoader.load(path) }
    }
}
