// What the screen shows besides the model: help, a prompt, the quit question, the focused pane, a message.
import SluiceViewModel

public struct UIState: Equatable, Sendable {
    public enum Mode: Equatable, Sendable {
        case normal
        case help
        case prompt(Prompt, String)
        case confirmQuit
    }

    public enum Prompt: Equatable, Sendable { case addURL, filter }
    public enum Pane: Equatable, Sendable { case list, detail }

    public var mode = Mode.normal
    public var pane = Pane.list
    public var detailScroll = 0
    public var message: String?

    public init() {}
}

/// What a key asks of the program beyond the state it changed.
public enum UICommand: Equatable, Sendable {
    case intent(Intent)
    /// A completed row was removed: the app can let go of its task.
    case forget(Int)
    case quit
}
