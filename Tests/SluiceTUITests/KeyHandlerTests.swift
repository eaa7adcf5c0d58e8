// Keys, one at a time, in every mode: each registered action does what it says, and nothing else does anything.
import SluiceEngine
import SluiceTUI
import SluiceViewModel
import Testing

@Suite struct KeyHandlerTests {
    func press(_ keys: [Key], ui: inout UIState, model: inout Model) -> [UICommand] {
        keys.flatMap { KeyHandler.handle($0, ui: &ui, model: &model) }
    }

    @Test func taskKeysBecomeIntentsForTheSelectedTask() {
        var ui = UIState(), m = sampleModel()
        m.select(3)
        #expect(press([.character("r")], ui: &ui, model: &m) == [.intent(.resume(3))])
        #expect(press([.character("s")], ui: &ui, model: &m) == [.intent(.suspend(3))])
        #expect(press([.character("c")], ui: &ui, model: &m) == [.intent(.cancel(3))])
        #expect(press([.character("d")], ui: &ui, model: &m) == [.intent(.convert(3))])
    }

    @Test func everyRegisteredActionHasAnEffect() {
        for action in Action.allCases {
            var ui = UIState(), m = sampleModel()
            m.select(2)
            if action == .remove { m.select(4) }  // a completed task can be removed
            if action == .up || action == .pageUp { m.select(3) }
            if action == .close { m.filter = "a" }  // Esc clears a filter; with nothing open it has nothing to close
            let before = (ui, m)
            let commands = press([action.keys[0]], ui: &ui, model: &m)
            #expect(!commands.isEmpty || ui != before.0 || m != before.1, "\(action) did nothing")
        }
    }

    @Test func unlistedKeysDoNothing() {
        var ui = UIState(), m = sampleModel()
        let before = (ui, m)
        #expect(press([.character("z"), .character("Z"), .left, .right], ui: &ui, model: &m).isEmpty)
        #expect(ui == before.0 && m == before.1)
    }

    @Test func arrowsAndJKMoveTheSelectionTabScrollsTheDetail() {
        var ui = UIState(), m = sampleModel()
        m.select(1)
        _ = press([.down, .character("j")], ui: &ui, model: &m)
        #expect(m.selectedID == 3)
        _ = press([.up], ui: &ui, model: &m)
        #expect(m.selectedID == 2)
        _ = press([.tab, .down, .down], ui: &ui, model: &m)
        #expect(ui.pane == .detail)
        #expect(ui.detailScroll == 2)
        #expect(m.selectedID == 2, "in the detail pane the arrows scroll")
    }

    @Test func pageKeysAndHomeEndComeFromTheActionList() {
        var ui = UIState(), m = Model()
        for id in 1...30 { m.apply(.added(id: id, url: "http://h/\(id)", kind: .data, requestHeaders: [], at: 0)) }
        #expect(Action.action(for: .pageDown) == .pageDown && Action.action(for: .home) == .first && Action.action(for: .end) == .last)
        _ = press([.pageDown], ui: &ui, model: &m)
        #expect(m.selectedID == 1 + KeyHandler.pageStep)
        _ = press([.end], ui: &ui, model: &m)
        #expect(m.selectedID == 30)
        _ = press([.pageUp], ui: &ui, model: &m)
        #expect(m.selectedID == 30 - KeyHandler.pageStep)
        _ = press([.character("g")], ui: &ui, model: &m)
        #expect(m.selectedID == 1)
        _ = press([.character("G"), .home], ui: &ui, model: &m)
        #expect(m.selectedID == 1)
        _ = press([.tab, .pageDown, .pageDown], ui: &ui, model: &m)
        #expect(ui.detailScroll == 2 * KeyHandler.pageStep, "in the detail pane the page keys scroll")
        #expect(m.selectedID == 1)
    }

    @Test func escapeIsAnActionToo() {
        #expect(Action.action(for: .escape) == .close)
        var ui = UIState(), m = sampleModel()
        m.filter = "slow"
        ui.message = "sorted by state"
        _ = press([.escape], ui: &ui, model: &m)
        #expect(m.filter.isEmpty && ui.message == nil)
    }

    /// `X` on an old row whose file name a later download took again asks to remove the row only.
    @Test func purgingAnOldRowLeavesTheFileALaterRowSaved() {
        var m = Model(), ui = UIState()
        for id in [1, 2] {
            m.apply(.added(id: id, url: "http://h/f", kind: .download, requestHeaders: [], at: 0))
            m.apply(.engine(TaskEventRecord(taskIdentifier: id, uptimeNanoseconds: 1, event: .stateChanged(.completed))))
            m.apply(.engine(TaskEventRecord(taskIdentifier: id, uptimeNanoseconds: 1, event: .didCompleteWithError(nil))))
            m.apply(.saved(id: id, path: "/d/f"))
        }
        m.select(1)
        _ = press([.character("X")], ui: &ui, model: &m)
        #expect(ui.mode == .confirmPurge(1, nil), "\(ui.mode)")
        #expect(press([.character("y")], ui: &ui, model: &m) == [.purge(1, savedPath: nil)])
        m.select(2)
        _ = press([.character("X")], ui: &ui, model: &m)
        #expect(ui.mode == .confirmPurge(2, "/d/f"), "\(ui.mode)")
    }

    @Test func addPromptTypesEditsAndSubmits() {
        var ui = UIState(), m = sampleModel()
        let keys: [Key] = [.character("a")] + "http://x/yy".map { .character($0) } + [.backspace, .enter]
        #expect(press(keys, ui: &ui, model: &m) == [.intent(.add("http://x/y", .data))])
        #expect(ui.mode == .normal)
        _ = press([.character("a"), .character("h"), .escape], ui: &ui, model: &m)
        #expect(ui.mode == .normal, "Escape closes the prompt without adding")
    }

    /// In a session of downloads (`sluice -d`, or attached to the daemon) `a` adds a download; Tab makes it a data
    /// task. It added a data task, which fetched the bytes and kept none.
    @Test func aDownloadSessionAddsDownloads() {
        var ui = UIState(), m = sampleModel()
        ui.addsDownloads = true
        #expect(press([.character("a"), .character("u"), .enter], ui: &ui, model: &m) == [.intent(.add("u", .download))])
        #expect(press([.character("a"), .character("v"), .tab, .enter], ui: &ui, model: &m) == [.intent(.add("v", .data))])
    }

    @Test func tabInTheAddPromptSwitchesBetweenDataTaskAndDownload() {
        var ui = UIState(), m = sampleModel()
        var commands = press([.character("a"), .character("u"), .tab], ui: &ui, model: &m)
        #expect(commands.isEmpty && ui.mode == .prompt(.addDownload, "u"), "the text typed so far stays")
        commands = press([.enter], ui: &ui, model: &m)
        #expect(commands == [.intent(.add("u", .download))])
        commands = press([.character("a"), .tab, .tab, .character("v"), .enter], ui: &ui, model: &m)
        #expect(commands == [.intent(.add("v", .data))])
    }

    @Test func theJobsPromptTakesOnlyASensibleNumber() {
        var ui = UIState(), m = sampleModel()
        var commands = press([.character("J"), .character("1"), .character("2"), .enter], ui: &ui, model: &m)
        #expect(commands == [.intent(.setConcurrency(12))])
        for bad in ["0", "x", "99999"] {
            commands = press([.character("J")] + bad.map { .character($0) } + [.enter], ui: &ui, model: &m)
            #expect(commands.isEmpty && ui.message?.contains("1 to 10000") == true, "\(bad)")
        }
    }

    @Test func queueKeysMoveTheSelectedTask() {
        var ui = UIState(), m = sampleModel()
        m.select(2)
        #expect(press([.character("+")], ui: &ui, model: &m) == [.intent(.move(2, by: 1))])
        #expect(press([.character("-")], ui: &ui, model: &m) == [.intent(.move(2, by: -1))])
    }

    @Test func filterNarrowsWhileTypingAndEscapeClearsIt() {
        var ui = UIState(), m = sampleModel()
        _ = press([.character("/")] + "drop".map { .character($0) }, ui: &ui, model: &m)
        #expect(m.visibleRows.map(\.id) == [4])
        _ = press([.enter], ui: &ui, model: &m)
        #expect(m.filter == "drop")
        _ = press([.escape], ui: &ui, model: &m)
        #expect(m.filter.isEmpty)
    }

    @Test func quitAsksWhileTransfersRun() {
        var ui = UIState(), m = sampleModel()
        #expect(press([.character("q")], ui: &ui, model: &m).isEmpty)
        #expect(ui.mode == .confirmQuit)
        #expect(press([.character("n")], ui: &ui, model: &m).isEmpty)
        #expect(ui.mode == .normal)
        #expect(press([.character("q"), .character("y")], ui: &ui, model: &m) == [.quit])
        var idle = Model()
        var quiet = UIState()
        #expect(KeyHandler.handle(.character("q"), ui: &quiet, model: &idle) == [.quit], "nothing running: no question")
    }

    @Test func attachedQuitDetachesAtOnceAndCapitalQStopsTheDaemonAfterAsking() {
        var ui = UIState(), m = sampleModel()
        ui.attachedTo = "default"
        #expect(press([.character("q")], ui: &ui, model: &m) == [.quit], "transfers run on in the daemon: nothing to confirm")
        #expect(press([.character("Q")], ui: &ui, model: &m).isEmpty)
        #expect(ui.mode == .confirmStopDaemon)
        #expect(press([.escape], ui: &ui, model: &m).isEmpty)
        #expect(ui.mode == .normal)
        #expect(press([.character("Q"), .character("n")], ui: &ui, model: &m).isEmpty)
        #expect(press([.character("Q"), .character("y")], ui: &ui, model: &m) == [.stopDaemon])
        #expect(ui.mode == .normal)

        var own = UIState()
        #expect(press([.character("Q")], ui: &own, model: &m).isEmpty)
        #expect(own.mode == .normal, "a UI with its own transfers has no daemon to stop")
        #expect(own.message?.contains("attach") == true)
    }

    /// `c` on a download that has bytes asks first: it deletes them (one stray key at 97 % threw a download away).
    /// `s` in the question suspends instead; a data task, or a download with nothing yet, is cancelled at once.
    @Test func cancellingADownloadWithBytesAsksFirst() {
        var m = Model()
        m.apply(.added(id: 1, url: "http://h/big.iso", kind: .download, requestHeaders: [], at: 0))
        m.apply(.added(id: 2, url: "http://h/page", kind: .data, requestHeaders: [], at: 0))
        m.apply(.added(id: 3, url: "http://h/new.iso", kind: .download, requestHeaders: [], at: 0))
        for id in 1...3 { m.apply(.engine(TaskEventRecord(taskIdentifier: id, uptimeNanoseconds: 1, event: .stateChanged(.running)))) }
        m.apply(.engine(TaskEventRecord(taskIdentifier: 1, uptimeNanoseconds: 2, event: .didWriteData(bytes: 4_718_592, total: 4_718_592, expected: 6_000_000))))
        m.apply(.engine(TaskEventRecord(taskIdentifier: 2, uptimeNanoseconds: 2, event: .didReceiveData(bytes: 500))))
        var ui = UIState()
        m.select(1)
        #expect(press([.character("c")], ui: &ui, model: &m).isEmpty)
        #expect(ui.mode == .confirmCancel(1))
        #expect(press([.character("n")], ui: &ui, model: &m).isEmpty && ui.mode == .normal)
        #expect(press([.character("c"), .character("s")], ui: &ui, model: &m) == [.intent(.suspend(1))] && ui.mode == .normal)
        #expect(press([.character("c"), .character("y")], ui: &ui, model: &m) == [.intent(.cancel(1))] && ui.mode == .normal)
        m.select(2)
        #expect(press([.character("c")], ui: &ui, model: &m) == [.intent(.cancel(2))], "a data task keeps nothing")
        m.select(3)
        #expect(press([.character("c")], ui: &ui, model: &m) == [.intent(.cancel(3))], "nothing downloaded yet")
    }

    /// s, r, c and d on a row that has ended say so; the app answered "no such task" for a row an earlier run ended.
    @Test func taskKeysOnAnEndedRowSayItHasEnded() {
        var ui = UIState(), m = sampleModel()
        let ended = m.rows.first(where: \.isFinished)
        guard let ended else { Issue.record("the sample has ended rows"); return }
        m.select(ended.id)
        for key in ["s", "r", "c", "d"] {
            #expect(press([.character(Character(key))], ui: &ui, model: &m).isEmpty, "\(key)")
            #expect(ui.message == "#\(ended.id) has ended (\(ended.stateWord))", "\(key): \(ui.message ?? "")")
        }
    }

    @Test func allTaskKeysPurgeAsksAndOpenNeedsASavedFile() {
        var ui = UIState(), m = sampleModel()
        #expect(press([.character("P")], ui: &ui, model: &m) == [.intent(.suspendAll)])
        #expect(press([.character("R")], ui: &ui, model: &m) == [.intent(.resumeAll)])
        let ended = m.rows.filter(\.isFinished).map(\.id)
        #expect(!ended.isEmpty, "the sample has ended rows")
        var cleared = m
        #expect(press([.character("C")], ui: &ui, model: &cleared).isEmpty && ui.mode == .confirmClearEnded(ended.count), "asked first")
        #expect(press([.character("n")], ui: &ui, model: &cleared).isEmpty && cleared.rows.count == m.rows.count)
        #expect(press([.character("C"), .character("y")], ui: &ui, model: &cleared) == ended.map { .forget($0) })
        #expect(cleared.rows.allSatisfy { !$0.isFinished })
        #expect(press([.character("C")], ui: &ui, model: &cleared).isEmpty)
        #expect(ui.message == "no task has ended")

        let running = m.rows.first { !$0.isFinished }?.id ?? -1
        m.select(running)
        #expect(press([.character("X")], ui: &ui, model: &m).isEmpty)
        #expect(ui.mode == .normal && ui.message?.contains("cancel it first") == true)
        let done = ended[0]
        m.select(done)
        let path = m.row(done)?.savedPath
        #expect(press([.character("X")], ui: &ui, model: &m).isEmpty)
        #expect(ui.mode == .confirmPurge(done, path))
        #expect(press([.character("n")], ui: &ui, model: &m).isEmpty)
        #expect(m.row(done) != nil, "n keeps it")
        #expect(press([.character("X"), .character("y")], ui: &ui, model: &m) == [.purge(done, savedPath: path)])
        #expect(m.row(done) == nil)

        m.select(running)
        #expect(press([.character("O")], ui: &ui, model: &m).isEmpty)
        #expect(ui.message?.contains("no saved file") == true)
        #expect(press([.character("F")], ui: &ui, model: &m).isEmpty)
        #expect(ui.message?.contains("no saved file") == true)
        let saved = running  // any row, once the model hears it was saved
        m.apply(.saved(id: saved, path: "/home/u/Downloads/a b.iso"))
        m.select(saved)
        #expect(press([.character("O")], ui: &ui, model: &m) == [.open("/home/u/Downloads/a b.iso")])
        #expect(press([.character("F")], ui: &ui, model: &m) == [.open("/home/u/Downloads")], "its folder")
        m.apply(.saved(id: saved, path: "/top.bin"))
        #expect(press([.character("F")], ui: &ui, model: &m) == [.open("/")])
    }

    @Test func helpOpensAndEscapeOrQuestionMarkCloses() {
        var ui = UIState(), m = sampleModel()
        _ = press([.character("?")], ui: &ui, model: &m)
        #expect(ui.mode == .help)
        _ = press([.character("r")], ui: &ui, model: &m)
        #expect(ui.mode == .help, "keys do not act behind the help")
        _ = press([.escape], ui: &ui, model: &m)
        #expect(ui.mode == .normal)
    }

    @Test func removeRefusesARunningTask() {
        var ui = UIState(), m = sampleModel()
        m.select(1)
        _ = press([.character("x")], ui: &ui, model: &m)
        #expect(m.row(1) != nil)
        #expect(ui.message == "only completed tasks can be removed")
        m.select(4)
        #expect(press([.character("x")], ui: &ui, model: &m) == [.forget(4)])
        #expect(m.row(4) == nil)
    }
}

extension KeyHandlerTests {
    @Test func limitPromptsTakeCurlsRatesAndZeroForNone() {
        var ui = UIState(), m = sampleModel()
        m.select(2)
        #expect(press([.character("L")] + "2M".map { .character($0) } + [.enter], ui: &ui, model: &m) == [.intent(.setSessionRate(2 << 20))])
        #expect(press([.character("l")] + "500k".map { .character($0) } + [.enter], ui: &ui, model: &m) == [.intent(.setTaskRate(2, 500 << 10))])
        #expect(press([.character("L"), .character("0"), .enter], ui: &ui, model: &m) == [.intent(.setSessionRate(nil))])
        let refused = press([.character("l")] + "fast".map { .character($0) } + [.enter], ui: &ui, model: &m)
        #expect(refused.isEmpty && ui.message?.contains("500k") == true)
    }
}
