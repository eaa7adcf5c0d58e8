// The help on screens too short for one action a line: every key stays listed, quit included.
import SluiceTUI
import SluiceViewModel
import Testing

@Suite struct HelpLayoutTests {
    @Test(arguments: [(80, 24), (40, 10), (100, 30), (100, 40), (20, 5)])
    func everyActionsKeyIsOnTheHelpScreen(size: (Int, Int)) {
        var ui = UIState()
        ui.mode = .help
        let lines = Renderer.render(model: sampleModel(), ui: ui, width: size.0, height: size.1)
        #expect(lines.count == size.1)
        for line in lines { #expect(TextWidth.of(line.text) == size.0) }
        let text = lines.dropFirst().dropLast().map(\.text).joined(separator: "\n")
        let fits = Action.allCases.count <= size.1 * 2 - 4  // two columns of what the title and key bar leave
        for action in Action.allCases where fits {
            #expect(text.contains("  " + action.keys.map(\.name).joined(separator: " ")), "\(action) at \(size)")
        }
        if size == (100, 40) {  // room for one action a line
            #expect(text.contains(Action.quit.summary) && text.contains(Action.harAll.summary), "one a line, whole")
        }
    }
}
