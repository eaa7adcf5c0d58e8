// `--checksum ALGO=HEX`: the digest a downloaded file must have before it is given its name.
import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

struct ChecksumOption: ExpressibleByArgument {
    let algorithm: FileDigest.Algorithm
    let expected: String

    init?(argument: String) {
        let halves = argument.split(separator: "=", maxSplits: 1).map(String.init)
        guard halves.count == 2, let algorithm = FileDigest.Algorithm(rawValue: halves[0].lowercased().filter { $0 != "-" }) else {
            return nil
        }
        let hex = halves[1].lowercased()
        guard hex.count == algorithm.digestLength * 2, hex.allSatisfy({ $0.isHexDigit }) else { return nil }
        self.algorithm = algorithm
        expected = hex
    }

    static var defaultCompletionKind: CompletionKind { .default }

    /// Reads the file at `path` through the digest; nil when it matches, else what is wrong, in words.
    func mismatch(at path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "cannot read the downloaded file to check its \(algorithm.rawValue): \(String(cString: strerror(errno)))" }
        defer { close(fd) }
        var digest = FileDigest(algorithm)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = read(fd, buffer.baseAddress, buffer.count)
            if n < 0 {
                if errno == EINTR { continue }
                return "cannot read the downloaded file to check its \(algorithm.rawValue): \(String(cString: strerror(errno)))"
            }
            if n == 0 { break }
            digest.update(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
        }
        let actual = FileDigest.hex(digest.finish())
        return actual == expected ? nil : "\(algorithm.rawValue) mismatch: expected \(expected), got \(actual)"
    }
}
