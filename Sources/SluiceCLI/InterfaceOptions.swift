// What `sluice URL...` and `sluice demo` share: where downloads go, the theme, and running the UI (or plain
// progress lines when standard output is not a terminal).
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import SluiceStore
import SluiceTUI
import SluiceViewModel

struct InterfaceOptions: ParsableArguments {
    @Option(name: .customLong("output-dir"), parsing: .unconditional, help: "Where downloads (converted tasks) are saved, made when missing; the current directory by default (or the config file's output-dir).")
    var outputDirGiven: String?

    @Option(name: .customLong("theme"), parsing: .unconditional, help: "A theme name from themes/ (default, light, mono) or a path to a theme file (or the config file's theme).")
    var themeGiven: String?

    var outputDir: String { outputDirGiven ?? "." }
    var theme: String { themeGiven ?? "default" }

    /// The download directory, made with its parents when it is missing, as aria2c -d and wget -P make theirs (a
    /// manager's users expect it; `sluice get` keeps curl's --create-dirs). Whatever is there is left alone.
    static func makeOutputDirectory(_ path: String) throws(CLIFailure) {
        var info = stat()
        if stat(path, &info) != 0, let failure = Directories.make(path, mode: 0o777) {
            throw CLIFailure(code: 1, message: "cannot make the output directory \(Sanitized.text(failure.path)): \(failure.reason)")
        }
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw CLIFailure(code: 1, message: "the output directory \(Sanitized.text(path)) is not a directory")
        }
    }

    /// Checks everything before the terminal is touched, so an error never leaves a half-drawn screen. Plain
    /// progress lines use no theme: off a terminal only a theme the user named is read (and a broken one reported),
    /// so a copied binary without its themes folder still prints progress.
    func prepare(interactive: Bool) throws -> (directory: String, theme: Theme, useColor: Bool) {
        try Self.makeOutputDirectory(outputDir)
        guard access(outputDir, W_OK) == 0 else {
            throw CLIFailure(code: 1, message: "no permission to write in \(Sanitized.text(outputDir))")
        }
        let directory = realpath(outputDir, nil).map { p in
            defer { free(p) }
            return String(cString: p)
        } ?? outputDir
        guard interactive || theme != "default" else { return (directory, Theme(name: "none", styles: [:]), false) }
        let loaded: Theme
        do {
            loaded = try ThemeLoader.load(theme)
        } catch {
            throw CLIFailure(code: 1, message: "theme: " + Sanitized.text(error.description))
        }
        let noColor = getenv("NO_COLOR").map { $0.pointee != 0 } ?? false  // https://no-color.org
        return (directory, loaded, !noColor)
    }

    /// The UI on a terminal, plain lines otherwise. Ctrl-C and SIGTERM end it with the terminal restored.
    /// `notice`: said on the UI's status line, or on standard error without a terminal.
    func run(_ app: TransferApp, theme: Theme, useColor: Bool, interactive: Bool, exitWhenDone: Bool = false,
             taskCommand: String? = nil, notice: String? = nil) throws {
        let stop = StopFlag()
        let insisted = StopFlag()  // a Ctrl-C or SIGTERM (a SIGHUP is a closed terminal, not a user insisting)
        var plain: PlainRun?
        let interrupted = try SignalTrap.run(stoppingWith: { signal in
            if signal != SIGHUP { insisted.set() }
            stop.set()
        }) {
            if interactive {
                Screen.prepareLocale()
                do throws(Screen.StartError) {
                    try app.runInterface(theme: theme, useColor: useColor, stop: stop, exitWhenDone: exitWhenDone,
                                         taskCommand: taskCommand, message: notice)
                    // A script's `sluice -d --exit-when-done LIST && next` must stop on a failure, as off a terminal.
                    if exitWhenDone { plain = app.tallyAtQuit }
                } catch {
                    throw CLIFailure(code: 1, message: error.description)
                }
            } else {
                if let notice { StandardStreams.error("sluice: \(notice)\n") }
                plain = app.runPlain(stop: stop) { StandardStreams.output($0 + "\n") }
            }
            // Still trapped: a closed terminal's second SIGHUP must not cut the last checkpoints short. A Ctrl-C
            // after a quit or the end ends the waits at once, as a second one does after the first.
            let signalled = stop.isSet
            let giveUp = { insisted.isSet && !signalled }
            app.cancelAll()
            // Downloads write their last checkpoints (those on disk are at most a second old): a quit waits for them
            // a little, a signal hardly at all, so that Ctrl-C ends the program at once.
            app.waitUntilStopped(seconds: signalled ? 2 : 10, unless: giveUp)
            // A hook the last task started finishes (within its timeout), unless the user will not wait for it. A
            // Ctrl-C or SIGTERM stops the hooks still running with the rest (one was left running on its own, past
            // its timeout); a closed terminal lets them finish within their timeout, then stops them.
            if signalled && insisted.isSet {
                app.stopHooks()
            } else if !app.waitForHooks(unless: giveUp, announce: { timeout in
                StandardStreams.error("sluice: waiting for a hook to end (at most \(WaitText.of(timeout)); Ctrl-C stops it)\n")
            }) {
                app.stopHooks()
            }
        }
        app.session.invalidateAndCancel()
        if let signal = interrupted {
            throw CLIFailure(code: 128 + signal, message: "interrupted; data tasks still running were cancelled, downloads keep their partial files and resume when sluice starts again")
        }
        if let plain { try Self.check(plain) }
    }

    /// Without a terminal, the exit status says how the run's tasks ended, with `sluice get`'s codes: 1 when one
    /// failed, else 22 when one got an HTTP error status, else 0. Each such task's line above says which and why.
    static func check(_ run: PlainRun) throws(CLIFailure) {
        // "the task", or "2 of 5 tasks"
        func which(_ count: Int) -> String { run.ended == 1 ? "the task" : "\(count) of \(run.ended) tasks" }
        if run.failed > 0 { throw CLIFailure(code: 1, message: "\(which(run.failed)) failed") }
        if run.errorStatuses > 0 {
            throw CLIFailure(code: 22, message: "the server answered \(which(run.errorStatuses)) with an error status")
        }
    }
}

extension InterfaceOptions {
    /// True when the UI can take over the terminal.
    static var isTerminal: Bool { isatty(1) == 1 && isatty(0) == 1 }
}
