// The view-model stays pure: no file in it reaches the C library, the file system, threads or the full Foundation.
import Foundation
import Testing

@Suite struct PurityTests {
    @Test func noViewModelSourceImportsASystemModule() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/SluiceViewModel").standardized
        let files = try FileManager.default.contentsOfDirectory(atPath: sources.path).filter { $0.hasSuffix(".swift") }
        #expect(files.count > 5, "found the sources at \(sources.path)")
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") where line.hasPrefix("import ") {
                let module = line.dropFirst("import ".count).trimmingCharacters(in: .whitespaces)
                #expect(["SluiceEngine", "FoundationEssentials", "Foundation"].contains(module), "\(file) imports \(module)")
                if module == "Foundation" {
                    #expect(text.contains("#if canImport(FoundationEssentials)"), "\(file): full Foundation only as a fallback")
                }
            }
            for call in ["Glibc.", "open(", "link(", "unlink(", "mmap(", "FileManager", "DispatchQueue"] {
                #expect(!text.contains(call), "\(file) calls \(call)")
            }
        }
    }
}
