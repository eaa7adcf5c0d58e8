// `--on-complete`, `--on-error`, `--on-queue-empty`, `--notify`: what runs when tasks end, for the UI (`sluice
// URL...`) and the daemon. The command is the user's own, run by /bin/sh; a task's facts come in SLUICE_* variables.
import ArgumentParser
import SluiceTUI

struct HookOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: ArgumentHelp("Run CMD (by /bin/sh) when a task finishes; SLUICE_TASK_ID, SLUICE_URL, SLUICE_FILE, SLUICE_STATUS, SLUICE_BYTES, SLUICE_ERROR say which.", valueName: "cmd"))
    var onComplete: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Run CMD when a task fails or is cancelled (after its last retry), with the same variables.", valueName: "cmd"))
    var onError: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Run CMD when every task has ended.", valueName: "cmd"))
    var onQueueEmpty: String?

    @Flag(help: "A desktop notification (notify-send) when a task ends; the terminal's bell where there is none.")
    var notify = false

    @Option(parsing: .unconditional, help: ArgumentHelp("Seconds a hook may run before it is stopped.", valueName: "s"))
    var hookTimeout: Double = 60

    func hooks() throws -> TaskHooks {
        guard hookTimeout > 0 else { throw CLIFailure(code: 2, message: "--hook-timeout takes a number of seconds above 0") }
        for (flag, command) in [("--on-complete", onComplete), ("--on-error", onError), ("--on-queue-empty", onQueueEmpty)]
        where command?.allSatisfy(\.isWhitespace) == true {
            throw CLIFailure(code: 2, message: "\(flag) needs a command")
        }
        return TaskHooks(onComplete: onComplete, onError: onError, onQueueEmpty: onQueueEmpty, notify: notify, timeout: hookTimeout)
    }
}
