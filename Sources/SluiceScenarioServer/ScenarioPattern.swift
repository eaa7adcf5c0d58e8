// The deterministic bytes every scenario body is made of, so any byte range can be checked by value.
import NIOCore

public enum ScenarioPattern {
    /// A prime period: repeating slices of it never line up with power-of-two chunk sizes.
    public static let period = 65_521
    static let window = 1 << 20

    /// The byte at an absolute offset of every pattern body.
    public static func byte(at offset: Int64) -> UInt8 {
        let i = UInt64(offset % Int64(period))
        return UInt8(truncatingIfNeeded: (i &* 2_654_435_761) >> 13 ^ i)
    }

    /// `count` bytes from `offset` (not negative), copied from one period: a closure per byte took seconds per
    /// megabyte in a debug build, and tests that checked large bodies held the few threads Swift's concurrency
    /// has on a small machine for so long that other tests' streams and awaits stalled past their deadlines.
    public static func bytes(offset: Int64, count: Int) -> [UInt8] {
        guard count > 0 else { return [] }
        var result = [UInt8](repeating: 0, count: count)
        var start = Int(offset % Int64(period))
        var written = 0
        result.withUnsafeMutableBytes { out in
            cycle.withUnsafeBytes { source in
                while written < count {
                    let n = min(period - start, count - written)
                    out[written..<written + n].copyBytes(from: source[start..<start + n])
                    written += n
                    start = 0
                }
            }
        }
        return result
    }

    /// One period of the pattern.
    static let cycle: [UInt8] = (0..<period).map { byte(at: Int64($0)) }

    /// One period plus a megabyte, so any slice up to a megabyte starting anywhere is contiguous and zero-copy.
    static let buffer: ByteBuffer = {
        var b = ByteBufferAllocator().buffer(capacity: period + window)
        while b.readableBytes < period + window {
            b.writeBytes(cycle.prefix(period + window - b.readableBytes))
        }
        return b
    }()

    /// Whether `chunk` is the pattern's bytes starting at `offset`, compared a megabyte at a time.
    static func matches(_ chunk: ByteBuffer, at offset: Int64) -> Bool {
        var rest = chunk
        var position = offset
        while rest.readableBytes > 0 {
            let n = min(rest.readableBytes, window)
            guard let piece = rest.readSlice(length: n), piece == slice(offset: position, count: n) else { return false }
            position += Int64(n)
        }
        return true
    }

    static func slice(offset: Int64, count: Int) -> ByteBuffer {
        let start = Int(offset % Int64(period))
        return buffer.getSlice(at: buffer.readerIndex + start, length: min(count, window)) ?? ByteBuffer()
    }
}
