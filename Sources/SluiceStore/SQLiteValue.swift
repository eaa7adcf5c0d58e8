// A value bound to a statement's parameter: SQLite's five storage classes.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

enum SQLiteValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    init(_ value: Int64?) { self = value.map { .integer($0) } ?? .null }
    init(_ value: Int?) { self = value.map { .integer(Int64($0)) } ?? .null }
    init(_ value: Double?) { self = value.map { .real($0) } ?? .null }
    init(_ value: String?) { self = value.map { .text($0) } ?? .null }
    init(_ value: Data?) { self = value.map { .blob($0) } ?? .null }
}
