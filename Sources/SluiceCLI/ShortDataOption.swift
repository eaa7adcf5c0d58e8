// curl's `-d DATA` for `sluice get`, `sluice put` and `sluice add`. It is not in RequestOptions because the UI (`sluice URL...`)
// gives -d to --download, as aria2 users expect of a download manager; there the body is --data (docs/decisions.md).
import ArgumentParser

struct ShortDataOption: ParsableArguments {
    @Option(name: .customShort("d"),
            parsing: .unconditionalSingleValue, help: ArgumentHelp("Send DATA as the body (POST, form-encoded unless -H sets Content-Type); @FILE reads a file without its line breaks, @- standard input; several -d are joined with &. The same as --data.", valueName: "data"))
    var values: [String] = []
}
