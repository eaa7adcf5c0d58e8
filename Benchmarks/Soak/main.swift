// The soak: 10,000 tasks of every kind in one Session against the scenario server; one summary line, exit 1 on
// any failed check. Run in release: Benchmarks/soak, or swift run -c release sluice-soak [--tasks N] [--concurrency C]
SoakCommand.main(arguments: Array(CommandLine.arguments.dropFirst()))
