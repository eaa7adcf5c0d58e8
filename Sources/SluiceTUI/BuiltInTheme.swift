// The default theme inside the binary: a `sluice` copied on its own (`cp sluice ~/bin`) finds no themes folder,
// and its UI must still open. The same text as themes/default.toml (a test compares the two).
enum BuiltInTheme {
    static let defaultText = """
# Sluice default theme: for dark terminals. Each line: element = "foreground [on background] [bold dim underline reverse]".
# Colours: default black red green yellow blue magenta cyan white, and bright-<colour>.
[styles]
title = "bright-white on blue bold"
header = "cyan bold"
message = "yellow on blue bold"
row-running = "green"
row-suspended = "yellow"
row-awaiting = "bright-magenta bold"
row-stalled = "bright-yellow"
row-canceling = "magenta"
row-finished = "default"
row-failed = "bright-red"
row-cancelled = "bright-black"
selected = "black on cyan"
bar-fill = "bright-green"
bar-empty = "bright-black"
bar-unknown = "cyan"
detail-label = "cyan"
detail-value = "default"
timeline = "bright-white"
key = "black on cyan bold"
key-help = "default"
prompt = "bright-white on blue"
help = "default"

"""
}
