// The list's columns at every width: the name always there, the others dropping in the documented order.
@testable import SluiceTUI
import SluiceViewModel
import Testing

@Suite struct TaskListTests {
    /// docs/decisions.md: the first to go as the terminal narrows.
    let dropOrder: [TaskList.Column] = [.kind, .chunks, .host, .eta, .bytes, .rate, .percent, .bar, .state, .id]

    @Test func theNameIsAlwaysThereAndColumnsDropInTheDocumentedOrder() {
        for hostNeed in [nil, 15] as [Int?] {
            for nameNeed in [0, 9, 24, 60] {
                var previous: Set<TaskList.Column> = []
                for width in (Renderer.minimumWidth...260).reversed() {
                    let columns = TaskList.layout(width: width, nameNeed: nameNeed, hostNeed: hostNeed)
                    let used = columns.reduce(0) { $0 + $1.1 } + columns.count - 1
                    #expect(used <= width, "\(used) columns used of \(width)")
                    let name = columns.first { $0.0 == .name }?.1 ?? 0
                    #expect(name >= min(max(nameNeed, 4), 12), "the name keeps at least 12 columns (or all it needs) at \(width)")
                    let present = Set(columns.map(\.0))
                    if width < 260 {
                        #expect(present.isSubset(of: previous), "a narrower terminal never gains a column")
                        // Whatever went missing went in order: nothing is gone while a column that goes first is shown.
                        for (i, column) in dropOrder.enumerated() where !present.contains(column) && (column != .host || hostNeed != nil) {
                            for earlier in dropOrder[..<i] where earlier != .host || hostNeed != nil {
                                #expect(!present.contains(earlier), "\(earlier) outlived \(column) at \(width)")
                            }
                        }
                    }
                    if hostNeed == nil { #expect(!present.contains(.host), "one host: no host column") }
                    previous = present
                }
            }
        }
    }

    @Test func atEightyColumnsATypicalNameIsWhole() {
        let columns = TaskList.layout(width: 80, nameNeed: 24, hostNeed: nil)
        #expect(columns.first { $0.0 == .name }?.1 == 24)
        #expect(columns.map(\.0) == [.id, .name, .state, .bar, .percent, .bytes, .rate])
    }

    @Test func tenThousandRowsKeepTheirWholeIdsAndNames() {
        var m = Model()
        for id in 1...10_000 {
            m.apply(.added(id: id, url: "http://127.0.0.1:8080/many/f\(String(id).leftPadded(to: 5))", kind: .data,
                           requestHeaders: [], at: 0))
        }
        m.selectLast()
        let lines = Renderer.render(model: m, ui: UIState(), width: 80, height: 24)
        let last = lines.first { $0.text.hasPrefix("#10000 ") }?.text ?? ""
        #expect(last.contains(" f10000 ") && last.contains("queued"), "\(last)")
        #expect(lines[0].text.contains("10000 tasks · 0 active · 10000 queued"))
    }
}
