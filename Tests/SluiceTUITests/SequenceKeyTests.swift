// The sequence view's keys: v toggles it, the arrows scroll it back from the newest line, m, h and H ask for files.
import SluiceEngine
import SluiceTUI
import SluiceViewModel
import Testing

@Suite struct SequenceKeyTests {
    func press(_ keys: [Key], ui: inout UIState, model: inout Model) -> [UICommand] {
        keys.flatMap { KeyHandler.handle($0, ui: &ui, model: &model) }
    }

    @Test func vTogglesTheDetailPaneBetweenTimelineAndSequence() {
        var ui = UIState(), m = sampleModel()
        #expect(ui.detailView == .timeline)
        _ = press([.character("v")], ui: &ui, model: &m)
        #expect(ui.detailView == .sequence)
        _ = press([.character("v")], ui: &ui, model: &m)
        #expect(ui.detailView == .timeline)
    }

    @Test func inTheSequenceUpGoesBackInTimeAndDownReturnsToTheNewest() {
        var ui = UIState(), m = sampleModel()
        _ = press([.character("v"), .tab, .up, .up, .pageUp], ui: &ui, model: &m)
        #expect(ui.detailScroll == 12)
        _ = press([.down, .pageDown, .pageDown], ui: &ui, model: &m)
        #expect(ui.detailScroll == 0, "never below the newest line")
        _ = press([.tab, .down], ui: &ui, model: &m)
        #expect(m.selectedID == 2, "in the list the arrows still move the selection")
    }

    @Test func mAndHExportTheSelectedTaskAndShiftHEveryCompletedOne() {
        var ui = UIState(), m = sampleModel()
        m.select(6)
        #expect(press([.character("m")], ui: &ui, model: &m) == [.export(.mermaid(6))])
        #expect(press([.character("h")], ui: &ui, model: &m) == [.export(.har(6))])
        #expect(press([.character("H")], ui: &ui, model: &m) == [.export(.harOfCompleted)])
        var empty = Model()
        #expect(press([.character("m"), .character("H")], ui: &ui, model: &empty).isEmpty)
        var running = Model()
        running.apply(.added(id: 1, url: "http://h/a", kind: .data, requestHeaders: [], at: 0))
        #expect(press([.character("H")], ui: &ui, model: &running).isEmpty)
        #expect(ui.message == "no task has completed yet")
    }

    @Test func theNewKeysAreInTheOneList() {
        for key in ["v", "m", "h", "H"] { #expect(Action.action(for: .character(Character(key))) != nil, "\(key)") }
        #expect(Action.keyBar.contains(.sequence))
    }
}
