// `sluice URL...` and `sluice open ...` read by hand when every argument is plain, without ArgumentParser's reflection.
import ArgumentParser
import SluiceDaemon

enum OpenFastParse {
    /// The command line as an OpenCommand, or nil to go the long way (ArgumentParser's whole tree).
    ///
    /// ArgumentParser's parse was most of the start-up of `sluice -d URL` (15 ms of a 60 ms run under perf, against
    /// `sluice get`'s 31 ms in all): it reflects on `open` and its eight option groups. As GetFastParse does for
    /// `get`, this reads only the plain shapes (`--name value`, `-x value`, flags, URLs that do not start with `-`)
    /// of the options people type most; anything else (help, `--`, `--name=value`, `-abc`, a value starting with
    /// `-`, an option not listed here, a single-valued option given twice, a value that does not convert) returns
    /// nil, and ArgumentParser answers it as before. OpenFastParseTests compares both parses over many lists.
    static func command(_ arguments: [String], subcommands: [String]) -> OpenCommand? {
        var rest = arguments[...]
        if let first = rest.first, first == OpenCommand.configuration.commandName {
            rest = rest.dropFirst()
        } else if let first = rest.first, first == "help" || subcommands.contains(first) {
            return nil  // another command's line, or ArgumentParser's own `help` command
        }
        var scan = Scan()
        guard FastParse.walk(rest, url: { scan.urls.append($0) }, flag: { (flag: Flag) in scan.set(flag) },
                             option: { (option: Option, value) in scan.set(option, value) }) else { return nil }
        return scan.command()
    }

    /// The flags read here, by every name ArgumentParser gives them.
    private enum Flag: String {
        case d = "-d", download = "--download", ask = "--ask", fresh = "--fresh", exitWhenDone = "--exit-when-done"
        case notify = "--notify"
    }

    /// The options with a value read here, by every name ArgumentParser gives them.
    private enum Option: String {
        case i = "-i", j = "-j", perHost = "--per-host", split = "--split", outputDir = "--output-dir", theme = "--theme"
        case retry = "--retry", retryMaxTime = "--retry-max-time", limitRate = "--limit-rate"
        case onComplete = "--on-complete", onError = "--on-error", onQueueEmpty = "--on-queue-empty"
    }

    /// What the arguments said so far; nil means not given (the defaults are OpenCommand's).
    private struct Scan {
        var urls: [String] = []
        var inputFile: String?, jobs: Int?, perHost: Int?, split: Int?, outputDir: String?, theme: String?
        var retry: Int?, retryMaxTime: Double?, limitRate: String?
        var onComplete: String?, onError: String?, onQueueEmpty: String?
        var download = false, ask = false, fresh = false, exitWhenDone = false, notify = false

        /// False for a flag given twice: ArgumentParser decides what that means.
        mutating func set(_ flag: Flag) -> Bool {
            switch flag {
            case .d, .download: FastParse.once(&download)
            case .ask: FastParse.once(&ask)
            case .fresh: FastParse.once(&fresh)
            case .exitWhenDone: FastParse.once(&exitWhenDone)
            case .notify: FastParse.once(&notify)
            }
        }

        /// False for a single-valued option given twice or a value that does not convert.
        mutating func set(_ option: Option, _ value: String) -> Bool {
            switch option {
            case .i: FastParse.once(&inputFile, value)
            case .j: FastParse.once(&jobs, Int(argument: value))
            case .perHost: FastParse.once(&perHost, Int(argument: value))
            case .split: FastParse.once(&split, Int(argument: value))
            case .outputDir: FastParse.once(&outputDir, value)
            case .theme: FastParse.once(&theme, value)
            case .retry: FastParse.once(&retry, Int(argument: value))
            case .retryMaxTime: FastParse.once(&retryMaxTime, Double(argument: value))
            case .limitRate: FastParse.once(&limitRate, value)
            case .onComplete: FastParse.once(&onComplete, value)
            case .onError: FastParse.once(&onError, value)
            case .onQueueEmpty: FastParse.once(&onQueueEmpty, value)
            }
        }

        /// The command with every property set: a property-wrapper left unset would stop the program when read.
        func command() -> OpenCommand? {
            var command = OpenCommand()
            command.urls = urls
            command.inputFile = inputFile
            command.download = download
            command.jobs = jobs
            command.perHost = perHost
            command.split = split
            command.ask = ask
            command.fresh = fresh
            command.background = false
            var daemon = DaemonOptions()
            daemon.identifier = DaemonPaths.defaultIdentifier
            command.daemon = daemon
            command.exitWhenDone = exitWhenDone
            var hooks = HookOptions()
            hooks.onComplete = onComplete
            hooks.onError = onError
            hooks.onQueueEmpty = onQueueEmpty
            hooks.notify = notify
            hooks.hookTimeout = 60
            command.hookOptions = hooks
            var glob = GlobOption()
            glob.off = false
            command.glob = glob
            var interface = InterfaceOptions()
            interface.outputDirGiven = outputDir
            interface.themeGiven = theme
            command.interface = interface
            command.requestOptions = RequestOptions.unset
            var retryOptions = RetryOptions.unset
            retryOptions.retry = retry
            retryOptions.retryMaxTime = retryMaxTime
            retryOptions.limitRate = limitRate
            command.retryOptions = retryOptions
            var configFile = ConfigOption()
            configFile.path = nil
            command.configFile = configFile
            return command
        }
    }
}

extension RequestOptions {
    /// Every request option as ArgumentParser leaves it when none is given.
    static var unset: RequestOptions {
        var options = RequestOptions()
        options.headers = []
        options.method = nil
        options.data = []
        options.dataBinary = []
        options.user = nil
        options.serverAuth = .basic
        options.netrc = false
        options.cookies = []
        options.cookieJar = nil
        options.proxy = nil
        options.proxyUser = nil
        options.proxyAuth = .proxyBasic
        options.noProxy = nil
        options.insecure = false
        options.caCert = nil
        options.http1_1 = false
        options.http2 = false
        options.location = false
        options.userAgent = nil
        options.referer = nil
        options.compressed = false
        options.connectTimeout = nil
        options.maxRedirects = nil
        options.dataRaw = []
        options.dataURLEncoded = []
        options.get = false
        options.json = []
        return options
    }
}
