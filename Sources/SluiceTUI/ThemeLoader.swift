// Finds a theme by name or path and reads it whole; a missing or broken file stops the program before it draws.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import SluiceViewModel

public enum ThemeLoader {
    /// `nameOrPath`: a name looked up as NAME.toml in the theme directories, or a path to a file.
    public static func load(_ nameOrPath: String) throws(ThemeError) -> Theme {
        try load(nameOrPath, from: directories())
    }

    /// The same, looking for a theme by name in `folders`; `default` is built in when none of them has it.
    static func load(_ nameOrPath: String, from folders: [String]) throws(ThemeError) -> Theme {
        let isPath = nameOrPath.contains("/") || nameOrPath.hasSuffix(".toml")
        let candidates = isPath ? [nameOrPath] : folders.map { "\($0)/\(nameOrPath).toml" }
        for path in candidates {
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            guard let text = String(validating: data, as: UTF8.self) else {
                throw ThemeError(file: path, line: TOMLSubset.firstLineNotUTF8([UInt8](data)) ?? 1, message: "the file is not UTF-8 text")
            }
            let name = isPath ? String(path.split(separator: "/").last ?? "") : nameOrPath
            return try ThemeParser.parse(text, name: name, file: path)
        }
        if nameOrPath == "default" { return try ThemeParser.parse(BuiltInTheme.defaultText, name: "default", file: "(built in)") }
        let looked = isPath ? nameOrPath : candidates.joined(separator: ", ")
        throw ThemeError(file: nameOrPath, line: 0, message: "no such theme (looked in \(looked))")
    }

    /// $SLUICE_THEMES, ./themes, then the themes folder of the installation or checkout the binary runs from.
    static func directories() -> [String] {
        var dirs: [String] = []
        if let env = getenv("SLUICE_THEMES") { dirs.append(String(cString: env)) }
        dirs.append("themes")
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if n > 0 {
            let exe = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            var parts = exe.split(separator: "/", omittingEmptySubsequences: false).dropLast()
            dirs.append(parts.joined(separator: "/") + "/../share/sluice/themes")  // an installed bin/sluice
            for _ in 0..<4 where parts.count > 1 {  // a checkout: .build/<triple>/<config>/sluice
                parts = parts.dropLast()
                dirs.append(parts.joined(separator: "/") + "/themes")
            }
        }
        return dirs
    }
}
