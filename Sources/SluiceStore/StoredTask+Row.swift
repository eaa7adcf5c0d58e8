// A task to and from a row of the `task` table; request headers are kept as a JSON array of [name, value].
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension StoredTask {
    /// The values of `StoreSchema.columns`, in that order.
    var databaseValues: [SQLiteValue] { databaseValues(id: nil) }

    /// The same, with `id` before them (an upsert's) or after them (an update's), in one array: adding it to the
    /// list made a second array of every value, for every row written.
    func databaseValues(id: Int64?, first: Bool = true) -> [SQLiteValue] {
        var values: [SQLiteValue] = []
        values.reserveCapacity(StoreSchema.columns.count + 1)
        if let id, first { values.append(.integer(id)) }
        values.append(.text(url))
        values.append(.text(method))
        values.append(.text(Self.encodeHeaders(requestHeaders)))
        values.append(.text(kind.rawValue))
        values.append(.text(state.rawValue))
        values.append(SQLiteValue(priority))
        values.append(SQLiteValue(destination))
        values.append(SQLiteValue(partialPath))
        values.append(.integer(bytesReceived))
        values.append(SQLiteValue(bytesExpected))
        values.append(SQLiteValue(etag))
        values.append(SQLiteValue(lastModified))
        values.append(SQLiteValue(resumeData))
        values.append(.real(createdAt))
        values.append(SQLiteValue(startedAt))
        values.append(SQLiteValue(endedAt))
        values.append(SQLiteValue(statusCode))
        values.append(SQLiteValue(outcome))
        values.append(SQLiteValue(error))
        values.append(SQLiteValue(attempts))
        values.append(.text(timeline))
        if let id, !first { values.append(.integer(id)) }
        return values
    }

    /// The task in the statement's current row, which `StoreSchema.selectSQL` chose.
    init(row statement: SQLiteStatement) throws {
        let row = RowReader(statement: statement, id: statement.int64(0))
        let id = row.id
        let kindText = try row.text("kind")
        let stateText = try row.text("state")
        guard let kind = Kind(rawValue: kindText) else {
            throw StoreError.unreadableRow(id: id, column: "kind", value: kindText)
        }
        guard let state = State(rawValue: stateText) else {
            throw StoreError.unreadableRow(id: id, column: "state", value: stateText)
        }
        let headersText = try row.text("requestHeaders")
        guard let headers = Self.decodeHeaders(headersText) else {
            throw StoreError.unreadableRow(id: id, column: "requestHeaders", value: headersText)
        }
        self.init(
            id: id,
            url: try row.text("url"),
            method: try row.text("method"),
            requestHeaders: headers,
            kind: kind,
            state: state,
            priority: try row.int("priority"),
            destination: row.optionalText("destination"),
            partialPath: row.optionalText("partialPath"),
            bytesReceived: try row.int64("bytesReceived"),
            bytesExpected: row.optionalInt64("bytesExpected"),
            etag: row.optionalText("etag"),
            lastModified: row.optionalText("lastModified"),
            resumeData: row.optionalBlob("resumeData"),
            createdAt: try row.double("createdAt"),
            startedAt: row.optionalDouble("startedAt"),
            endedAt: row.optionalDouble("endedAt"),
            statusCode: row.optionalInt64("statusCode").map { Int(truncatingIfNeeded: $0) },
            outcome: row.optionalText("outcome"),
            error: row.optionalText("error"),
            attempts: try row.int("attempts"),
            timeline: try row.text("timeline")
        )
    }

    /// `[["name","value"],...]`, written here: JSONEncoder cost more than the rest of a row's values, and a
    /// store writes every row of a queue.
    static func encodeHeaders(_ headers: [StoredHeader]) -> String {
        guard !headers.isEmpty else { return "[]" }
        var text = "["
        for (index, header) in headers.enumerated() {
            text += index == 0 ? "[" : ",["
            appendJSONString(header.name, to: &text)
            text += ","
            appendJSONString(header.value, to: &text)
            text += "]"
        }
        return text + "]"
    }

    /// `string` as a JSON string: quote, backslash and control characters escaped, everything else as it is. Not
    /// SluiceViewModel's `JSONText.quote`: the store depends on no part of the engine or the view model.
    static func appendJSONString(_ string: String, to text: inout String) {
        // Most strings (URLs, header lines) need no escape: appended whole, not scalar by scalar, which cost
        // a fifth of `sluice -d -i LIST`'s start with 2,000 URLs (perf).
        if !string.utf8.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20 }) {
            text += "\""
            text += string
            text += "\""
            return
        }
        text += "\""
        var plain = string.unicodeScalars.startIndex
        for index in string.unicodeScalars.indices {
            let scalar = string.unicodeScalars[index]
            guard scalar == "\"" || scalar == "\\" || scalar.value < 0x20 else { continue }
            text.unicodeScalars.append(contentsOf: string.unicodeScalars[plain..<index])
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\t": text += "\\t"
            case "\r": text += "\\r"
            default:
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
            plain = string.unicodeScalars.index(after: index)
        }
        text.unicodeScalars.append(contentsOf: string.unicodeScalars[plain...])
        text += "\""
    }

    static func decodeHeaders(_ text: String) -> [StoredHeader]? {
        if text == "[]" { return [] }  // most tasks: JSONDecoder was a third of reading a row (perf)
        guard let pairs = try? JSONDecoder().decode([[String]].self, from: Data(text.utf8)) else { return nil }
        var headers: [StoredHeader] = []
        headers.reserveCapacity(pairs.count)
        for pair in pairs {
            guard pair.count == 2 else { return nil }
            headers.append(StoredHeader(name: pair[0], value: pair[1]))
        }
        return headers
    }
}

/// The columns of one row by name; a NULL where the schema allows none is an unreadable row, not a zero.
private struct RowReader {
    let statement: SQLiteStatement
    let id: Int64

    private func column(_ name: String) -> Int32 {
        // The names are this file's own, all in StoreSchema.columns: a miss is a programming error.
        guard let position = StoreSchema.position[name] else { preconditionFailure("no column \(name) in task") }
        return position
    }

    private func present(_ name: String) throws -> Int32 {
        let position = column(name)
        guard !statement.isNull(position) else { throw StoreError.unreadableRow(id: id, column: name, value: "NULL") }
        return position
    }

    func text(_ name: String) throws -> String { statement.text(try present(name)) }
    func int64(_ name: String) throws -> Int64 { statement.int64(try present(name)) }
    func int(_ name: String) throws -> Int { Int(truncatingIfNeeded: statement.int64(try present(name))) }
    func double(_ name: String) throws -> Double { statement.double(try present(name)) }

    func optionalText(_ name: String) -> String? {
        let position = column(name)
        return statement.isNull(position) ? nil : statement.text(position)
    }

    func optionalInt64(_ name: String) -> Int64? {
        let position = column(name)
        return statement.isNull(position) ? nil : statement.int64(position)
    }

    func optionalDouble(_ name: String) -> Double? {
        let position = column(name)
        return statement.isNull(position) ? nil : statement.double(position)
    }

    func optionalBlob(_ name: String) -> Data? {
        let position = column(name)
        return statement.isNull(position) ? nil : statement.blob(position)
    }
}
