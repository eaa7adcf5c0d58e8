// A store file SQLite cannot use is renamed beside itself with the time, never deleted, and a fresh one made.
#if canImport(Glibc)
import Glibc
#endif
import CSQLite

enum DamagedStore {
    /// Why the file at `path` cannot be used as it is, or nil when it is absent or sound. Looked at before the
    /// store's own connections open it, because they write on opening (WAL setup, migrations) and SQLite
    /// deletes a WAL it finds beside a file that is not a database: the evidence is moved aside untouched.
    static func inspect(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }  // following a link: a store kept elsewhere is fine
        guard info.st_mode & S_IFMT == S_IFREG else { return "it is not a regular file" }
        guard info.st_size > 0 else { return nil }  // SQLite's own start of a new database
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        var header = [UInt8](repeating: 0, count: 16)
        let count = read(fd, &header, header.count)
        close(fd)
        guard count == 16, header == Array("SQLite format 3\0".utf8) else { return "it is not an SQLite database" }
        do throws(SQLiteError) {
            let connection = try SQLiteConnection(path: path, readOnly: true)
            let statement = try connection.prepare("PRAGMA quick_check")
            var report: [String] = []
            while try statement.step() { report.append(statement.text(0)) }
            return report == ["ok"] ? nil : "integrity check: " + report.prefix(3).joined(separator: "; ")
        } catch where isDamage(error, path: path) {
            return error.message
        } catch {
            return nil  // busy, or no memory: not the file's fault; opening the store reports it
        }
    }

    /// Whether an error opening or checking the store means the file itself is bad, rather than busy or the
    /// disk full: only then is it moved aside, so a store another sluice has locked is never touched.
    static func isDamage(_ error: any Error, path: String) -> Bool {
        guard let error = error as? SQLiteError else { return false }
        switch error.code {
        case SQLITE_CORRUPT, SQLITE_NOTADB:
            return true
        case SQLITE_CANTOPEN:
            // Unreadable: the file is there but cannot be opened as a database (a directory in its place,
            // no permission). A missing file that cannot be made is a directory problem, not damage.
            return access(path, F_OK) == 0
        default:
            return false
        }
    }

    /// Renames `path` and its -wal and -shm companions (a stale WAL would otherwise be replayed into the
    /// fresh file) to `path.corrupt-YYYYmmdd-HHMMSS` plus the same suffix; returns the new name.
    static func moveAside(_ path: String) throws(StoreError) -> String {
        let base = path + ".corrupt-" + timestamp()
        var target = base
        var n = 2
        while access(target, F_OK) == 0 || access(target + "-wal", F_OK) == 0 {
            target = base + "-\(n)"
            n += 1
        }
        guard rename(path, target) == 0 else {
            throw .cannotMoveAside(path: path, reason: String(cString: strerror(errno)))
        }
        for suffix in ["-wal", "-shm"] where access(path + suffix, F_OK) == 0 {
            guard rename(path + suffix, target + suffix) == 0 else {
                throw .cannotMoveAside(path: path + suffix, reason: String(cString: strerror(errno)))
            }
        }
        return target
    }

    /// Local time, as people read file names.
    private static func timestamp() -> String { LocalTime.text(Double(time(nil)), "%Y%m%d-%H%M%S") }
}
