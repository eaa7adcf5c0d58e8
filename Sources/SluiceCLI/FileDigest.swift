// SHA-256, SHA-512 (FIPS 180-4) and MD5 (RFC 1321) over a stream of bytes, for `sluice get --checksum`.
#if canImport(Glibc)
import Glibc
#endif

/// One algorithm's running state: bytes in with `update`, the digest out with `finish`. Written here rather than
/// taken from swift-crypto, whose BoringSSL build would cost every build of the package about a minute.
struct FileDigest {
    enum Algorithm: String, CaseIterable {
        case sha256, sha512, md5

        var digestLength: Int {
            switch self {
            case .sha256: 32
            case .sha512: 64
            case .md5: 16
            }
        }

        var blockLength: Int { self == .sha512 ? 128 : 64 }
    }

    let algorithm: Algorithm
    private var state32: [UInt32]
    private var state64: [UInt64]
    private var block: [UInt8] = []
    private var length: UInt64 = 0

    init(_ algorithm: Algorithm) {
        self.algorithm = algorithm
        switch algorithm {
        case .sha256:
            state32 = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
            state64 = []
        case .sha512:
            state32 = []
            state64 = [0x6a09e667f3bcc908, 0xbb67ae8584caa73b, 0x3c6ef372fe94f82b, 0xa54ff53a5f1d36f1,
                       0x510e527fade682d1, 0x9b05688c2b3e6c1f, 0x1f83d9abfb41bd6b, 0x5be0cd19137e2179]
        case .md5:
            state32 = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476]
            state64 = []
        }
        block.reserveCapacity(algorithm.blockLength)
    }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        length &+= UInt64(bytes.count)
        var i = 0
        let size = algorithm.blockLength
        if !block.isEmpty {
            let take = min(size - block.count, bytes.count)
            block.append(contentsOf: bytes[0..<take])
            i = take
            guard block.count == size else { return }
            let full = block
            full.withUnsafeBytes { if let base = $0.baseAddress { compress(base) } }
            block.removeAll(keepingCapacity: true)
        }
        guard let base = bytes.baseAddress else { return }
        while bytes.count - i >= size {
            compress(base + i)
            i += size
        }
        if i < bytes.count { block.append(contentsOf: bytes[i...]) }
    }

    mutating func update(_ bytes: [UInt8]) { bytes.withUnsafeBytes { update($0) } }

    /// The digest; the value is spent afterwards.
    mutating func finish() -> [UInt8] {
        let bits = length &* 8
        let size = algorithm.blockLength
        var tail: [UInt8] = [0x80]
        let lengthField = algorithm == .sha512 ? 16 : 8
        while (block.count + tail.count) % size != size - lengthField { tail.append(0) }
        if algorithm == .md5 {
            for k in 0..<8 { tail.append(UInt8(truncatingIfNeeded: bits >> (8 * UInt64(k)))) }
        } else {
            if algorithm == .sha512 { tail += [UInt8](repeating: 0, count: 8) }
            for k in (0..<8).reversed() { tail.append(UInt8(truncatingIfNeeded: bits >> (8 * UInt64(k)))) }
        }
        let saved = length
        update(tail)
        length = saved
        switch algorithm {
        case .sha256: return state32.flatMap { w in (0..<4).reversed().map { UInt8(truncatingIfNeeded: w >> (8 * UInt32($0))) } }
        case .sha512: return state64.flatMap { w in (0..<8).reversed().map { UInt8(truncatingIfNeeded: w >> (8 * UInt64($0))) } }
        case .md5: return state32.flatMap { w in (0..<4).map { UInt8(truncatingIfNeeded: w >> (8 * UInt32($0))) } }
        }
    }

    static func hex(_ digest: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(digest.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
    }

    // MARK: Compression functions

    private mutating func compress(_ p: UnsafeRawPointer) {
        switch algorithm {
        case .sha256: sha256Block(p)
        case .sha512: sha512Block(p)
        case .md5: md5Block(p)
        }
    }

    // The message schedules live on the stack: an array per block would be a heap allocation per 64 bytes.
    private mutating func sha256Block(_ p: UnsafeRawPointer) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { sha256Block(p, $0) }
    }

    private mutating func sha256Block(_ p: UnsafeRawPointer, _ w: UnsafeMutableBufferPointer<UInt32>) {
        for t in 0..<16 { w[t] = UInt32(bigEndian: p.loadUnaligned(fromByteOffset: t * 4, as: UInt32.self)) }
        for t in 16..<64 {
            let s0 = w[t - 15].rotatedRight(7) ^ w[t - 15].rotatedRight(18) ^ (w[t - 15] >> 3)
            let s1 = w[t - 2].rotatedRight(17) ^ w[t - 2].rotatedRight(19) ^ (w[t - 2] >> 10)
            w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
        }
        var a = state32[0], b = state32[1], c = state32[2], d = state32[3]
        var e = state32[4], f = state32[5], g = state32[6], h = state32[7]
        for t in 0..<64 {
            let t1 = h &+ (e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)) &+ ((e & f) ^ (~e & g)) &+ Self.k256[t] &+ w[t]
            let t2 = (a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)) &+ ((a & b) ^ (a & c) ^ (b & c))
            h = g; g = f; f = e; e = d &+ t1; d = c; c = b; b = a; a = t1 &+ t2
        }
        state32[0] &+= a; state32[1] &+= b; state32[2] &+= c; state32[3] &+= d
        state32[4] &+= e; state32[5] &+= f; state32[6] &+= g; state32[7] &+= h
    }

    private mutating func sha512Block(_ p: UnsafeRawPointer) {
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 80) { sha512Block(p, $0) }
    }

    private mutating func sha512Block(_ p: UnsafeRawPointer, _ w: UnsafeMutableBufferPointer<UInt64>) {
        for t in 0..<16 { w[t] = UInt64(bigEndian: p.loadUnaligned(fromByteOffset: t * 8, as: UInt64.self)) }
        for t in 16..<80 {
            let s0 = w[t - 15].rotatedRight(1) ^ w[t - 15].rotatedRight(8) ^ (w[t - 15] >> 7)
            let s1 = w[t - 2].rotatedRight(19) ^ w[t - 2].rotatedRight(61) ^ (w[t - 2] >> 6)
            w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
        }
        var a = state64[0], b = state64[1], c = state64[2], d = state64[3]
        var e = state64[4], f = state64[5], g = state64[6], h = state64[7]
        for t in 0..<80 {
            let t1 = h &+ (e.rotatedRight(14) ^ e.rotatedRight(18) ^ e.rotatedRight(41)) &+ ((e & f) ^ (~e & g)) &+ Self.k512[t] &+ w[t]
            let t2 = (a.rotatedRight(28) ^ a.rotatedRight(34) ^ a.rotatedRight(39)) &+ ((a & b) ^ (a & c) ^ (b & c))
            h = g; g = f; f = e; e = d &+ t1; d = c; c = b; b = a; a = t1 &+ t2
        }
        state64[0] &+= a; state64[1] &+= b; state64[2] &+= c; state64[3] &+= d
        state64[4] &+= e; state64[5] &+= f; state64[6] &+= g; state64[7] &+= h
    }

    private mutating func md5Block(_ p: UnsafeRawPointer) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 16) { md5Block(p, $0) }
    }

    private mutating func md5Block(_ p: UnsafeRawPointer, _ m: UnsafeMutableBufferPointer<UInt32>) {
        for i in 0..<16 { m[i] = UInt32(littleEndian: p.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)) }
        var a = state32[0], b = state32[1], c = state32[2], d = state32[3]
        for i in 0..<64 {
            var f: UInt32
            let g: Int
            switch i {
            case 0..<16: f = (b & c) | (~b & d); g = i
            case 16..<32: f = (d & b) | (~d & c); g = (5 * i + 1) % 16
            case 32..<48: f = b ^ c ^ d; g = (3 * i + 5) % 16
            default: f = c ^ (b | ~d); g = (7 * i) % 16
            }
            f = f &+ a &+ Self.kMD5[i] &+ m[g]
            a = d; d = c; c = b
            b = b &+ f.rotatedLeft(Self.sMD5[i])
        }
        state32[0] &+= a; state32[1] &+= b; state32[2] &+= c; state32[3] &+= d
    }

    private static let k256: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    private static let k512: [UInt64] = [
        0x428a2f98d728ae22, 0x7137449123ef65cd, 0xb5c0fbcfec4d3b2f, 0xe9b5dba58189dbbc, 0x3956c25bf348b538,
        0x59f111f1b605d019, 0x923f82a4af194f9b, 0xab1c5ed5da6d8118, 0xd807aa98a3030242, 0x12835b0145706fbe,
        0x243185be4ee4b28c, 0x550c7dc3d5ffb4e2, 0x72be5d74f27b896f, 0x80deb1fe3b1696b1, 0x9bdc06a725c71235,
        0xc19bf174cf692694, 0xe49b69c19ef14ad2, 0xefbe4786384f25e3, 0x0fc19dc68b8cd5b5, 0x240ca1cc77ac9c65,
        0x2de92c6f592b0275, 0x4a7484aa6ea6e483, 0x5cb0a9dcbd41fbd4, 0x76f988da831153b5, 0x983e5152ee66dfab,
        0xa831c66d2db43210, 0xb00327c898fb213f, 0xbf597fc7beef0ee4, 0xc6e00bf33da88fc2, 0xd5a79147930aa725,
        0x06ca6351e003826f, 0x142929670a0e6e70, 0x27b70a8546d22ffc, 0x2e1b21385c26c926, 0x4d2c6dfc5ac42aed,
        0x53380d139d95b3df, 0x650a73548baf63de, 0x766a0abb3c77b2a8, 0x81c2c92e47edaee6, 0x92722c851482353b,
        0xa2bfe8a14cf10364, 0xa81a664bbc423001, 0xc24b8b70d0f89791, 0xc76c51a30654be30, 0xd192e819d6ef5218,
        0xd69906245565a910, 0xf40e35855771202a, 0x106aa07032bbd1b8, 0x19a4c116b8d2d0c8, 0x1e376c085141ab53,
        0x2748774cdf8eeb99, 0x34b0bcb5e19b48a8, 0x391c0cb3c5c95a63, 0x4ed8aa4ae3418acb, 0x5b9cca4f7763e373,
        0x682e6ff3d6b2b8a3, 0x748f82ee5defb2fc, 0x78a5636f43172f60, 0x84c87814a1f0ab72, 0x8cc702081a6439ec,
        0x90befffa23631e28, 0xa4506cebde82bde9, 0xbef9a3f7b2c67915, 0xc67178f2e372532b, 0xca273eceea26619c,
        0xd186b8c721c0c207, 0xeada7dd6cde0eb1e, 0xf57d4f7fee6ed178, 0x06f067aa72176fba, 0x0a637dc5a2c898a6,
        0x113f9804bef90dae, 0x1b710b35131c471b, 0x28db77f523047d84, 0x32caab7b40c72493, 0x3c9ebe0a15c9bebc,
        0x431d67c49c100d4c, 0x4cc5d4becb3e42b6, 0x597f299cfc657e2a, 0x5fcb6fab3ad6faec, 0x6c44198c4a475817,
    ]

    private static let sMD5: [UInt32] = [7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
                                         5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
                                         4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
                                         6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21]

    /// floor(abs(sin(i + 1)) * 2^32)
    private static let kMD5: [UInt32] = (0..<64).map { i in
        UInt32(truncatingIfNeeded: Int64((abs(sin(Double(i + 1))) * 4_294_967_296).rounded(.down)))
    }
}

extension FixedWidthInteger where Self: UnsignedInteger {
    fileprivate func rotatedRight(_ n: Self) -> Self { (self >> n) | (self << (Self(Self.bitWidth) - n)) }
    fileprivate func rotatedLeft(_ n: Self) -> Self { (self << n) | (self >> (Self(Self.bitWidth) - n)) }
}
