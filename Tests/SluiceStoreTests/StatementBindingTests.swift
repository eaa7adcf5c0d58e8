// A statement run again: values for every parameter replace every binding, and a run given fewer leaves the rest
// unbound (NULL), never the last run's values (binding skips clearing when nothing would be left over).
@testable import SluiceStore
import Testing

@Suite struct StatementBindingTests {
    @Test func aRunGivenFewerValuesDoesNotKeepTheLastRunsOthers() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let connection = try SQLiteConnection(path: dir.path + "/t.db")
        let statement = try connection.prepare("SELECT ?1, ?2")
        try statement.bind([.integer(1), .text("two")])
        #expect(try statement.step())
        #expect(statement.int64(0) == 1 && statement.text(1) == "two")

        try statement.bind([.integer(3), .null])
        #expect(try statement.step())
        #expect(statement.int64(0) == 3 && statement.isNull(1))

        try statement.bind([.integer(4), .text("five")])
        #expect(try statement.step())
        try statement.bind([.integer(6)])
        #expect(try statement.step())
        #expect(statement.int64(0) == 6 && statement.isNull(1), "the second parameter kept \"five\"")
    }
}
