// The bytes a data task has shown, kept so that converting it to a download writes a whole file.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The first `smallLimit` bytes go into ordinary memory: most bodies are small, and a mapping populated 2 MiB at a
/// time cost each 16 KiB body 2 MiB of zeroed pages (10,000 small tasks spent seconds in the kernel). A body that
/// grows past it moves once into one anonymous mapping, reserved at the capacity and touched only as bytes
/// arrive: faulting 32 MiB in one trap per 4 KiB page cost about 8 % of a full-speed 1 GiB transfer's CPU
/// (Benchmarks/ui_cost.py: +12.5 % against `sluice get`); populating 2 MiB per madvise call brought the UI's whole
/// cost down to +1.3 %.
final class KeptBytes {
    let capacity: Int
    static let smallLimit = 1 << 20
    private var small = Data()
    private var base: UnsafeMutableRawPointer?
    private var length = 0
    private(set) var count = 0
    private var populated = 0

    init(capacity: Int) { self.capacity = capacity }

    deinit { if let base { munmap(base, length) } }

    /// False (and nothing kept) when the bytes would pass the capacity or memory is refused.
    func append(_ data: Data) -> Bool {
        guard count + data.count <= capacity else { return false }
        if base == nil && count + data.count <= Self.smallLimit {
            small.append(data)
            count += data.count
            return true
        }
        if base == nil {
            guard reserve(), let base else { return false }
            populate(base, upTo: count + data.count)
            small.withUnsafeBytes { raw in
                if let from = raw.baseAddress { base.copyMemory(from: from, byteCount: raw.count) }
            }
            small = Data()
        }
        guard let base else { return false }
        populate(base, upTo: count + data.count)
        data.withUnsafeBytes { raw in
            if let from = raw.baseAddress { (base + count).copyMemory(from: from, byteCount: raw.count) }
        }
        count += data.count
        return true
    }

    /// Faults the next pages in one call (MADV_POPULATE_WRITE, Linux 5.14) rather than one trap per 4 KiB page.
    private func populate(_ base: UnsafeMutableRawPointer, upTo end: Int) {
        guard end > populated else { return }
        let step = min(length - populated, max(2 << 20, end - populated))
        _ = madvise(base + populated, step, 23)
        populated += step
    }

    /// The kept bytes as Data that owns its memory (no copy); this object is empty afterwards.
    func take() -> Data {
        if base == nil {
            defer {
                small = Data()
                count = 0
            }
            return small
        }
        guard let base, count > 0 else { return Data() }
        let mapping = (base, length)
        self.base = nil
        defer { count = 0 }
        return Data(bytesNoCopy: base, count: count, deallocator: .custom { _, _ in munmap(mapping.0, mapping.1) })
    }

    private func reserve() -> Bool {
        let huge = 2 << 20
        let size = (max(capacity, 1) + huge - 1) / huge * huge
        guard let p = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), p != MAP_FAILED else {
            return false
        }
        _ = madvise(p, size, 14)  // MADV_HUGEPAGE: fewer pages still where the kernel grants them
        base = p
        length = size
        return true
    }
}
