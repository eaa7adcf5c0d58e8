// The repeats a frame pads and draws bars with: the same text String(repeating:count:) makes, and nothing for a
// count below one (where String(repeating:count:) stops the program).
import SluiceViewModel
import Testing

@Suite struct RepeatedTextTests {
    @Test func aPieceRepeatedIsWhatTheStandardLibraryMakes() {
        for piece in [" ", "█", "─", "ab", "e\u{301}"] {
            for count in [1, 2, 7, 120] {
                #expect(RepeatedText.of(piece, count: count) == String(repeating: piece, count: count), "\(piece) \(count)")
            }
        }
        #expect(RepeatedText.of("░", count: 3).utf8.count == 9)
    }

    @Test func aCountBelowOneIsNothing() {
        #expect(RepeatedText.of("█", count: 0).isEmpty)
        #expect(RepeatedText.of(" ", count: -4).isEmpty)
    }
}
