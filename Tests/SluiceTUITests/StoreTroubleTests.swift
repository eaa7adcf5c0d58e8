// The message line tells when the task store's writes start failing and when they work again, once each: a full
// disk under the store was told of only at the quit (found by a tester).
import SluiceTUI
import Testing

@Suite struct StoreTroubleTests {
    @Test func aFailureIsToldWhenItStartsAndWhenItEnds() {
        #expect(StoreTrouble.message(was: nil, now: nil) == nil)
        #expect(StoreTrouble.message(was: nil, now: "database or disk is full")
                == "the task store cannot be written (database or disk is full): a crash now loses the list's changes")
        #expect(StoreTrouble.message(was: "database or disk is full", now: "database or disk is full") == nil, "told once")
        #expect(StoreTrouble.message(was: "database or disk is full", now: nil) == "the task store is written again")
    }
}
