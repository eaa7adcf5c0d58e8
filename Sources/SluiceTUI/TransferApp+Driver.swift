// The app as the screen's driver: its own transfers, in this process.
import SluiceEngine
import SluiceViewModel

extension TransferApp: InterfaceDriver {
    public func forget(_ id: Int) {
        delegate.forget(id)
        keeper?.remove(id)
    }

    /// A split download's ranges as they stand; nil for anything else.
    public func segments(of id: Int) -> [DownloadSegment]? {
        guard let download = delegate.task(id) as? DownloadTask, download.split > 1 else { return nil }
        return download.ranges
    }

    /// Downloads keep their partial files and checkpoints; data tasks are cancelled.
    public func quit() { cancelAll() }

    public func stopDaemon() -> String? { "not attached to a daemon" }

    public var ended: String? { nil }
}
