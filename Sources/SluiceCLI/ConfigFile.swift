// Where the config file is and reading it whole: --config FILE, $SLUICE_CONFIG, else $XDG_CONFIG_HOME/sluice/config.toml.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import SluiceEngine
import SluiceViewModel

enum ConfigFile {
    /// The file to read and whether it was named (a named file must exist; the default one may be missing).
    static func locate(named: String?, environment: [String: String]) -> (path: String, named: Bool)? {
        if let named, !named.isEmpty { return (named, true) }
        if let named = environment["SLUICE_CONFIG"], !named.isEmpty { return (named, true) }
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") { return (xdg + "/sluice/config.toml", false) }
        if let home = environment["HOME"], !home.isEmpty { return (home + "/.config/sluice/config.toml", false) }
        return nil
    }

    /// The settings in force before the command line: the file's, or the defaults when there is no file.
    /// Any error in the file stops here, before a transfer starts.
    static func load(named: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> SluiceConfig {
        guard let (path, wasNamed) = locate(named: named, environment: environment) else { return SluiceConfig() }
        let bytes: Data
        switch WholeFile.read(path) {
        case .success(let data): bytes = data
        case .failure(let failure) where failure.isMissing && !wasNamed: return SluiceConfig()
        case .failure(let failure):
            throw CLIFailure(code: 2, message: "cannot read the config file \(Sanitized.text(path)): \(failure.reason)")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            let line = TOMLSubset.firstLineNotUTF8([UInt8](bytes)) ?? 1
            throw CLIFailure(code: 2, message: "\(Sanitized.text(path)):\(line): the config file is not UTF-8 text")
        }
        do throws(TOMLError) {
            var config = try SluiceConfig.parse(text, file: path)
            // A path written with ~/ is the user's home, as a shell would read it.
            if let dir = config.outputDir.value, dir.hasPrefix("~/"), let home = environment["HOME"], !home.isEmpty {
                config.outputDir.value = home + dir.dropFirst()
            }
            return config
        } catch {
            throw CLIFailure(code: 2, message: "config: " + Sanitized.text(error.description))
        }
    }
}
