// The digests behind `--checksum`, against the published test vectors, in one piece and byte by byte.
@testable import SluiceCLI
import Testing

@Suite struct FileDigestTests {
    func hex(_ algorithm: FileDigest.Algorithm, _ bytes: [UInt8], byteByByte: Bool = false) -> String {
        var digest = FileDigest(algorithm)
        if byteByByte { for b in bytes { digest.update([b]) } } else { digest.update(bytes) }
        return FileDigest.hex(digest.finish())
    }

    @Test func theStandardVectors() {
        let abc = Array("abc".utf8)
        #expect(hex(.sha256, abc) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(hex(.sha512, abc) == "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
                + "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f")
        #expect(hex(.md5, abc) == "900150983cd24fb0d6963f7d28e17f72")
        #expect(hex(.sha256, []) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(hex(.md5, []) == "d41d8cd98f00b204e9800998ecf8427e")
        let million = [UInt8](repeating: 0x61, count: 1_000_000)
        #expect(hex(.sha256, million) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        #expect(hex(.md5, million) == "7707d6ae4e027c70eea2a935c2296f21")
        #expect(hex(.sha512, million) == "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973eb"
                + "de0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b")
    }

    @Test func piecesGiveTheSameDigestAsTheWhole() {
        for length in [55, 56, 63, 64, 65, 111, 112, 127, 128, 129, 300] {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            for algorithm in FileDigest.Algorithm.allCases {
                #expect(hex(algorithm, bytes) == hex(algorithm, bytes, byteByByte: true), "\(algorithm) at \(length)")
            }
        }
    }

    @Test func theOptionTakesAlgorithmAndHex() {
        #expect(ChecksumOption(argument: "SHA-256=" + String(repeating: "A", count: 64))?.algorithm == .sha256)
        #expect(ChecksumOption(argument: "md5=" + String(repeating: "0", count: 32))?.expected == String(repeating: "0", count: 32))
        #expect(ChecksumOption(argument: "sha256=abc") == nil, "too short")
        #expect(ChecksumOption(argument: "crc32=" + String(repeating: "0", count: 8)) == nil)
        #expect(ChecksumOption(argument: "sha256") == nil)
    }
}
