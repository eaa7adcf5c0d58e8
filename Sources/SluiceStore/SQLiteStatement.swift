// A prepared statement: bind its parameters, step through its rows, read their columns, run it again.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import CSQLite

/// Not Sendable: used only by the thread that holds its connection (see `SQLiteConnection`).
final class SQLiteStatement {
    private let handle: OpaquePointer
    private let connection: OpaquePointer
    /// How many `?` the statement has.
    private let parameters: Int

    init(sql: String, connection: OpaquePointer) throws(SQLiteError) {
        var handle: OpaquePointer?
        let code = sluice_sqlite3_prepare_v3(connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
        guard code == SQLITE_OK, let handle else { throw SQLiteError(code: code, connection: connection) }
        self.handle = handle
        self.connection = connection
        parameters = Int(sluice_sqlite3_bind_parameter_count(handle))
    }

    deinit {
        sluice_sqlite3_finalize(handle)
    }

    /// Back to before the first row, ending the statement's read of the file; the bindings stay.
    func reset() {
        sluice_sqlite3_reset(handle)  // its code repeats the last step's error, which that step already threw
    }

    /// Clears what the last run left (its position, its bindings) and binds `values` to ?1, ?2...
    func bind(_ values: [SQLiteValue]) throws(SQLiteError) {
        reset()
        // Values for every parameter replace every binding; fewer would leave the last run's in the others.
        if values.count < parameters { sluice_sqlite3_clear_bindings(handle) }
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    /// Binds one value; SQLite copies text and blobs before this returns.
    private func bind(_ value: SQLiteValue, at index: Int32) throws(SQLiteError) {
        let code: Int32
        switch value {
        case .null:
            code = sluice_sqlite3_bind_null(handle, index)
        case .integer(let number):
            code = sluice_sqlite3_bind_int64(handle, index, number)
        case .real(let number):
            code = sluice_sqlite3_bind_double(handle, index, number)
        case .text(let text) where text.utf8.isEmpty:
            code = sluice_sqlite3_bind_text(handle, index, "", 0, sluice_sqlite_transient())  // see the blob's case
        case .text(let text):
            var text = text
            code = text.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) {
                    sluice_sqlite3_bind_text(handle, index, $0.baseAddress, Int32($0.count), sluice_sqlite_transient())
                }
            }
        case .blob(let data) where data.isEmpty:
            code = sluice_sqlite3_bind_zeroblob(handle, index, 0)  // a null pointer would bind NULL
        case .blob(let data):
            code = data.withUnsafeBytes { bytes in
                sluice_sqlite3_bind_blob(handle, index, bytes.baseAddress, Int32(bytes.count), sluice_sqlite_transient())
            }
        }
        guard code == SQLITE_OK else { throw SQLiteError(code: code, connection: connection) }
    }

    /// Advances to the next row: true when there is one to read, false when the statement is done.
    func step() throws(SQLiteError) -> Bool {
        switch sluice_sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code: throw SQLiteError(code: code, connection: connection)
        }
    }

    /// Binds `values` and runs the statement to its end; returns the rows it inserted, updated or deleted
    /// (sqlite3_changes: not those of triggers, nor SQLite's own bookkeeping such as sqlite_sequence).
    @discardableResult
    func run(_ values: [SQLiteValue] = []) throws(SQLiteError) -> Int {
        try bind(values)
        while try step() {}
        return Int(sluice_sqlite3_changes(connection))
    }

    /// The same, with the texts bound where they lie: copied once, end to end, into a buffer that lasts until the
    /// statement is reset, where SQLite copied each by itself (an allocation and some 700 instructions a text; a
    /// stored task has nine). The bindings are cleared before the buffer goes, so nothing points into it after.
    @discardableResult
    func runBindingTextInPlace(_ values: [SQLiteValue]) throws(SQLiteError) -> Int {
        var total = 0
        for case .text(let text) in values { total += text.utf8.count }
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: max(1, total))  // never null, even for ""
        defer { buffer.deallocate() }
        reset()
        defer {
            sluice_sqlite3_reset(handle)
            sluice_sqlite3_clear_bindings(handle)
        }
        if values.count < parameters { sluice_sqlite3_clear_bindings(handle) }
        var used = 0
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            guard case .text(var text) = value else {
                try bind(value, at: index)
                continue
            }
            let start = buffer + used
            let count = text.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) { chars in
                    if let base = chars.baseAddress { start.update(from: base, count: chars.count) }
                    return chars.count
                }
            }
            used += count
            let code = sluice_sqlite3_bind_text(handle, index, start, Int32(count), sluice_sqlite_static())
            guard code == SQLITE_OK else { throw SQLiteError(code: code, connection: connection) }
        }
        while try step() {}
        return Int(sluice_sqlite3_changes(connection))
    }

    // The current row's columns, counted from 0. Valid only after `step()` returned true.

    func isNull(_ column: Int32) -> Bool {
        sluice_sqlite3_column_type(handle, column) == SQLITE_NULL
    }

    func int64(_ column: Int32) -> Int64 {
        sluice_sqlite3_column_int64(handle, column)
    }

    func double(_ column: Int32) -> Double {
        sluice_sqlite3_column_double(handle, column)
    }

    func text(_ column: Int32) -> String {
        // Text first, then its length: the order SQLite documents for a value it may have to convert.
        guard let bytes = sluice_sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sluice_sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    func blob(_ column: Int32) -> Data {
        // A blob of no bytes has no address.
        guard let bytes = sluice_sqlite3_column_blob(handle, column) else { return Data() }
        return Data(bytes: bytes, count: Int(sluice_sqlite3_column_bytes(handle, column)))
    }
}
