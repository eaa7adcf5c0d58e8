// The message of a list stopped by a signal: it promises no more than running the same command again does.
import Testing
@testable import SluiceCLI

@Suite struct InterruptedListTests {
    @Test func itSaysWhatTheSameCommandDoesWithTheFilesAlreadySaved() {
        #expect(InterruptedList.message(kept: 0, saved: 3) == "interrupted")
        #expect(InterruptedList.message(kept: 2, saved: 0)
                == "interrupted; 2 partial files are kept beside their targets: run the same command again to resume")
        let one = InterruptedList.message(kept: 1, saved: 1)
        #expect(one.hasPrefix("interrupted; 1 partial file is kept beside its target: run the same command again to resume ("))
        #expect(one.contains("the file already saved would be fetched again as NAME.1; leave its URL out"), "\(one)")
        #expect(InterruptedList.message(kept: 1, saved: 4).contains("the 4 files already saved"))
    }
}
