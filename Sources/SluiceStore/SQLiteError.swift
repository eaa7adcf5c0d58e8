// A result code SQLite returned, with its message: what the wrapper throws for every failed call.
import CSQLite

struct SQLiteError: Error, CustomStringConvertible, Sendable {
    /// The extended result code (SQLITE_IOERR_SHORT_READ, SQLITE_CORRUPT_VTAB...).
    let extendedCode: Int32
    /// sqlite3_errmsg at the time of the failure, or sqlite3_errstr of the code when there was no connection.
    let message: String

    /// The primary result code (SQLITE_CORRUPT, SQLITE_BUSY...): the low byte of the extended one.
    var code: Int32 { extendedCode & 0xFF }

    var description: String { message }

    init(extendedCode: Int32, message: String) {
        self.extendedCode = extendedCode
        self.message = message
    }

    /// The error of the last failed call on `connection`; `code` when the connection could not be made at all.
    init(code: Int32, connection: OpaquePointer?) {
        if let connection {
            extendedCode = sluice_sqlite3_extended_errcode(connection)
            message = String(cString: sluice_sqlite3_errmsg(connection))
        } else {
            extendedCode = code
            message = String(cString: sluice_sqlite3_errstr(code))
        }
    }
}
