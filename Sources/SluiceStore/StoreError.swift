// Why the store cannot be opened or read, in words the user can act on.

public enum StoreError: Error, CustomStringConvertible, Sendable {
    /// The database's schema has migrations this sluice does not know: a newer sluice made it.
    case newerSchema
    /// The store's directory cannot be made or used.
    case directory(path: String, reason: String)
    /// The file is damaged and could not be moved aside.
    case cannotMoveAside(path: String, reason: String)
    /// A row holds a value this sluice cannot read.
    case unreadableRow(id: Int64, column: String, value: String)

    public var description: String {
        switch self {
        case .newerSchema:
            return "the task store was written by a newer sluice; it is left as it is"
        case .directory(let path, let reason):
            return "cannot use the store directory \(path): \(reason)"
        case .cannotMoveAside(let path, let reason):
            return "the task store \(path) is damaged and cannot be moved aside: \(reason)"
        case .unreadableRow(let id, let column, let value):
            return "task \(id) in the store has an unknown \(column) \"\(value)\""
        }
    }
}
