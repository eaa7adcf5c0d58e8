// Colours by meaning: the renderer names elements (row-running, bar-fill...), a theme file says how they look.

public enum Element: String, CaseIterable, Sendable {
    case title, header, message
    case rowRunning = "row-running", rowSuspended = "row-suspended", rowAwaiting = "row-awaiting"
    case rowStalled = "row-stalled", rowCanceling = "row-canceling", rowFinished = "row-finished"
    case rowFailed = "row-failed", rowCancelled = "row-cancelled", selected
    case barFill = "bar-fill", barEmpty = "bar-empty", barUnknown = "bar-unknown"
    case detailLabel = "detail-label", detailValue = "detail-value", timeline
    case key, keyHelp = "key-help", prompt, help
}

public enum Color: String, CaseIterable, Sendable {
    case `default`, black, red, green, yellow, blue, magenta, cyan, white
    case brightBlack = "bright-black", brightRed = "bright-red", brightGreen = "bright-green"
    case brightYellow = "bright-yellow", brightBlue = "bright-blue", brightMagenta = "bright-magenta"
    case brightCyan = "bright-cyan", brightWhite = "bright-white"

    /// curses colour number; -1 is the terminal's own.
    public var number: Int {
        switch self {
        case .default: -1
        case .black: 0
        case .red: 1
        case .green: 2
        case .yellow: 3
        case .blue: 4
        case .magenta: 5
        case .cyan: 6
        case .white: 7
        case .brightBlack: 8
        case .brightRed: 9
        case .brightGreen: 10
        case .brightYellow: 11
        case .brightBlue: 12
        case .brightMagenta: 13
        case .brightCyan: 14
        case .brightWhite: 15
        }
    }

    /// On an 8-colour terminal a bright colour is its base colour (drawn bold).
    public var base: Color {
        number >= 8 ? Color.allCases.first { $0.number == number - 8 } ?? self : self
    }
}

public struct Style: Equatable, Sendable {
    public var foreground: Color = .default
    public var background: Color = .default
    public var bold = false
    public var dim = false
    public var underline = false
    public var reverse = false

    public init(foreground: Color = .default, background: Color = .default, bold: Bool = false, dim: Bool = false,
                underline: Bool = false, reverse: Bool = false) {
        self.foreground = foreground
        self.background = background
        self.bold = bold
        self.dim = dim
        self.underline = underline
        self.reverse = reverse
    }

    /// Without colours (NO_COLOR, monochrome terminals): attributes only.
    public var monochrome: Style { Style(bold: bold, dim: dim, underline: underline, reverse: reverse) }
}

public struct Theme: Equatable, Sendable {
    public let name: String
    public private(set) var styles: [Element: Style]

    public init(name: String, styles: [Element: Style]) {
        self.name = name
        self.styles = styles
    }

    /// An element the theme leaves out is drawn plain, except the selection, which must stay visible.
    public func style(_ element: Element) -> Style {
        styles[element] ?? (element == .selected ? Style(reverse: true) : Style())
    }

    public var monochrome: Theme {
        Theme(name: name, styles: styles.mapValues(\.monochrome))
    }
}
