// curl's URL globbing for `sluice get`: URL arguments expanded (not -i FILE's lines, as curl), `-g` to turn it off.
import ArgumentParser
import SluiceViewModel

struct GlobOption: ParsableArguments {
    @Flag(name: [.customShort("g"), .customLong("globoff")],
          help: "Take URL arguments as they are: no [1-10], [a-z] or {one,two} expansion.")
    var off = false

    /// The URL arguments as curl expands them, and with one argument and an -o that names #1, #2..., each URL's
    /// file name (nil otherwise: -o stays as it is).
    func expand(_ arguments: [String], output: String?) throws -> (urls: [String], outputs: [String]?) {
        let patterned = arguments.contains { $0.utf8.contains { "[]{}".utf8.contains($0) } }
        guard !off, patterned else { return (arguments, nil) }
        var urls: [String] = []
        var outputs: [String] = []
        for argument in arguments {
            let glob: URLGlob
            do throws(URLGlob.Failure) { glob = try URLGlob(argument) } catch {
                throw CLIFailure(code: 2, message: "\(error.message) (-g takes brackets and braces as they are)")
            }
            let expansions = glob.expansions()
            guard urls.count + expansions.count <= URLGlob.limit else {
                throw CLIFailure(code: 2, message: "the URL arguments expand to more than \(URLGlob.limit) URLs")
            }
            for expansion in expansions {
                urls.append(expansion.url)
                if let output { outputs.append(URLGlob.fill(output, with: expansion.values)) }
            }
        }
        guard arguments.count == 1, let output, URLGlob.isTemplate(output) || outputs.count == 1 else { return (urls, nil) }
        return (urls, outputs)
    }
}
