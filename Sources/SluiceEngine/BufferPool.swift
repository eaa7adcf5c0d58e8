// Reuses the gather buffers: a fresh 256 KiB allocation per flush meant an mmap, page faults and zeroing each time.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization
import SluiceLock

final class BufferPool: Sendable {
    let size: Int
    private let free = Locked<[UInt]>([])  // addresses, so the array is Sendable
    private let keep: Int

    init(size: Int, keep: Int = 32) {
        self.size = size
        self.keep = keep
    }

    func take() -> UnsafeMutableRawPointer {
        if let address = free.withLock({ $0.popLast() }), let p = UnsafeMutableRawPointer(bitPattern: address) { return p }
        return UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
    }

    /// A Data that owns `buffer` (no copy) and hands it back to the pool when released.
    func data(_ buffer: UnsafeMutableRawPointer, count: Int) -> Data {
        Data(bytesNoCopy: buffer, count: count, deallocator: .custom { [self] p, _ in give(p) })
    }

    func give(_ p: UnsafeMutableRawPointer) {
        let kept = free.withLock { list -> Bool in
            guard list.count < keep else { return false }
            list.append(UInt(bitPattern: p))
            return true
        }
        if !kept { p.deallocate() }
    }
}
