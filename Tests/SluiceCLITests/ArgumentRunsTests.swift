// Long runs of URLs skip swift-argument-parser's per-value cost and come back whole and in order.
@testable import SluiceCLI
import Testing

@Suite struct ArgumentRunsTests {
    let urls = (0..<500).map { "http://h/\($0)" }

    @Test func aLongRunIsFoldedAfterItsFirstAndUnfoldedInOrder() throws {
        let (folded, runs) = ArgumentRuns.fold(["get", "-o", "FILE"] + urls + ["-j", "3"])
        #expect(folded.count == 6, "get -o FILE <placeholder> -j 3: \(folded.count)")
        #expect(Array(folded.prefix(3)) == ["get", "-o", "FILE"] && folded.suffix(2) == ["-j", "3"])
        let command = try GetCommand.parse(Array(folded.dropFirst()))
        let unfolded = runs.unfold(command.urls)
        #expect(unfolded.count == urls.count && unfolded == urls, "FILE stays -o's value; the URLs follow it")
        #expect(command.output == "FILE" && command.jobs == 3)
    }

    @Test func aRunThatStartsWithAURLKeepsItFirst() throws {
        let (folded, runs) = ArgumentRuns.fold(["get", "--force"] + urls)
        let command = try GetCommand.parse(Array(folded.dropFirst()))
        let unfolded = runs.unfold(command.urls)
        #expect(unfolded.count == urls.count && unfolded == urls)
    }

    @Test func shortCommandLinesAreLeftAlone() {
        let arguments = ["get"] + urls.prefix(10)
        #expect(ArgumentRuns.fold(arguments).arguments == arguments)
        #expect(ArgumentRuns.fold(arguments).runs.unfold(["a", "b"]) == ["a", "b"])
    }
}
