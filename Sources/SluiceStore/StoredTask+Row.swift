// A task to and from a row of the `task` table; request headers are kept as a JSON array of [name, value].
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GRDB

extension StoredTask {
    /// The values of `StoreSchema.columns`, in that order.
    var databaseValues: StatementArguments {
        let values: [(any DatabaseValueConvertible)?] = [
            url, method, Self.encodeHeaders(requestHeaders), kind.rawValue, state.rawValue, priority, destination,
            partialPath, bytesReceived, bytesExpected, etag, lastModified, resumeData, createdAt, startedAt, endedAt,
            statusCode, outcome, error, attempts, timeline,
        ]
        return StatementArguments(values)
    }

    init(row: Row) throws {
        let id: Int64 = try row.decode(forColumn: "id")
        let kindText: String = try row.decode(forColumn: "kind")
        let stateText: String = try row.decode(forColumn: "state")
        guard let kind = Kind(rawValue: kindText) else {
            throw StoreError.unreadableRow(id: id, column: "kind", value: kindText)
        }
        guard let state = State(rawValue: stateText) else {
            throw StoreError.unreadableRow(id: id, column: "state", value: stateText)
        }
        let headersText: String = try row.decode(forColumn: "requestHeaders")
        guard let headers = Self.decodeHeaders(headersText) else {
            throw StoreError.unreadableRow(id: id, column: "requestHeaders", value: headersText)
        }
        self.init(
            id: id,
            url: try row.decode(forColumn: "url"),
            method: try row.decode(forColumn: "method"),
            requestHeaders: headers,
            kind: kind,
            state: state,
            priority: try row.decode(forColumn: "priority"),
            destination: try row.decode(forColumn: "destination"),
            partialPath: try row.decode(forColumn: "partialPath"),
            bytesReceived: try row.decode(forColumn: "bytesReceived"),
            bytesExpected: try row.decode(forColumn: "bytesExpected"),
            etag: try row.decode(forColumn: "etag"),
            lastModified: try row.decode(forColumn: "lastModified"),
            resumeData: try row.decode(forColumn: "resumeData"),
            createdAt: try row.decode(forColumn: "createdAt"),
            startedAt: try row.decode(forColumn: "startedAt"),
            endedAt: try row.decode(forColumn: "endedAt"),
            statusCode: try row.decode(forColumn: "statusCode"),
            outcome: try row.decode(forColumn: "outcome"),
            error: try row.decode(forColumn: "error"),
            attempts: try row.decode(forColumn: "attempts"),
            timeline: try row.decode(forColumn: "timeline")
        )
    }

    static func encodeHeaders(_ headers: [StoredHeader]) -> String {
        let pairs = headers.map { [$0.name, $0.value] }
        // An array of string arrays always encodes.
        return (try? JSONEncoder().encode(pairs)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
    }

    static func decodeHeaders(_ text: String) -> [StoredHeader]? {
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
