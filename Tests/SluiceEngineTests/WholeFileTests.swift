// WholeFile reads what a user names: a regular file, a FIFO (what `<(...)` in a shell gives), and says why not.
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import SluiceEngine

@Suite struct WholeFileTests {
    @Test func aRegularFileIsReadWhole() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let bytes = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })  // more than one read's buffer
        let path = dir.path + "/list.txt"
        try bytes.write(to: URL(fileURLWithPath: path))
        #expect(WholeFile.read(path) == .success(bytes))
    }

    /// A FIFO has no size to read up to: FileManager's contents(atPath:) returned nil for it, and `sluice get -i
    /// <(grep jpg list)` said it could not read the list.
    @Test func aFIFOIsReadToItsEnd() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let path = dir.path + "/fifo"
        #expect(mkfifo(path, 0o600) == 0)
        let text = String(repeating: "http://127.0.0.1/a\n", count: 5_000)  // past the pipe's 64 KiB buffer
        let writer = Thread {
            let fd = open(path, O_WRONLY | O_CLOEXEC)  // waits for the reader
            guard fd >= 0 else { return }
            let bytes = Array(text.utf8)
            var offset = 0
            while offset < bytes.count {
                let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                guard n > 0 else { break }
                offset += n
            }
            close(fd)
        }
        writer.start()
        #expect(WholeFile.read(path) == .success(Data(text.utf8)))
    }

    @Test func aMissingFileAndADirectorySayWhy() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        guard case .failure(let missing) = WholeFile.read(dir.path + "/absent") else {
            Issue.record("a missing file was read")
            return
        }
        #expect(missing.isMissing && missing.reason == "No such file or directory")
        guard case .failure(let directory) = WholeFile.read(dir.path) else {
            Issue.record("a directory was read")
            return
        }
        #expect(directory.errno == EISDIR && !directory.isMissing)
    }
}
