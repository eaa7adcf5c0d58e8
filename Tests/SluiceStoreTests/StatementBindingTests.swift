// A statement run again: values for every parameter replace every binding, and a run given fewer leaves the rest
// unbound (NULL), never the last run's values (binding skips clearing when nothing would be left over).
import Foundation
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

    /// Texts bound in place (one buffer of ours, SQLITE_STATIC) land whole and in their own columns: empty,
    /// multi-byte and long ones side by side, with the other kinds between them.
    @Test func textsBoundInPlaceLandWholeBesideTheOtherValues() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let connection = try SQLiteConnection(path: dir.path + "/t.db")
        try connection.execute("CREATE TABLE t (a, b, c, d, e, f, g)")
        let insert = try connection.prepare("INSERT INTO t VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")
        let long = String(repeating: "ü-", count: 3000)
        let values: [SQLiteValue] = [.text("first"), .text(""), .integer(7), .text("mañana ☃"), .null,
                                     .blob(Data([0, 1, 2])), .text(long)]
        #expect(try insert.runBindingTextInPlace(values) == 1)
        // Fewer values: the rest are NULL, not the last run's.
        #expect(try insert.runBindingTextInPlace([.text("again"), .real(1.5)]) == 1)
        let select = try connection.prepare("SELECT a, b, c, d, e, f, g, typeof(b) FROM t ORDER BY rowid")
        #expect(try select.step())
        #expect(select.text(0) == "first" && select.text(1) == "" && select.text(7) == "text")
        #expect(select.int64(2) == 7 && select.text(3) == "mañana ☃" && select.isNull(4))
        #expect(select.blob(5) == Data([0, 1, 2]) && select.text(6) == long)
        #expect(try select.step())
        #expect(select.text(0) == "again" && select.double(1) == 1.5)
        #expect((2...6).allSatisfy { select.isNull(Int32($0)) }, "the second run kept the first run's values")
        #expect(try !select.step())
    }
}
