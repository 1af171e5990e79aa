/// The styles the widgets use, by role.
///
/// `Theme.monochrome` uses attributes only (bold, reverse, underline, dim),
/// so every role stays distinguishable without colour. ``Theme/resolve(environment:terminalHasColors:)``
/// picks it when `NO_COLOR` is set (https://no-color.org) or the terminal has no colours.
public struct Theme: Hashable, Sendable {
    public var normal: Style
    /// Secondary text: hints, placeholders, "no rows".
    public var muted: Style
    public var border: Style
    public var focusedBorder: Style
    public var title: Style
    public var focusedTitle: Style
    public var tableHeader: Style
    /// The selected row of the focused table.
    public var selection: Style
    /// The selected row of a table that does not have focus.
    public var inactiveSelection: Style
    public var statusLine: Style
    public var helpKey: Style
    public var formLabel: Style
    public var formField: Style
    public var focusedFormField: Style
    public var cursor: Style
    public var error: Style
    public var warning: Style
    public var success: Style
    public var usesColor: Bool

    public init(
        normal: Style, muted: Style, border: Style, focusedBorder: Style, title: Style,
        focusedTitle: Style, tableHeader: Style, selection: Style, inactiveSelection: Style,
        statusLine: Style, helpKey: Style, formLabel: Style, formField: Style,
        focusedFormField: Style, cursor: Style, error: Style, warning: Style, success: Style,
        usesColor: Bool
    ) {
        self.normal = normal
        self.muted = muted
        self.border = border
        self.focusedBorder = focusedBorder
        self.title = title
        self.focusedTitle = focusedTitle
        self.tableHeader = tableHeader
        self.selection = selection
        self.inactiveSelection = inactiveSelection
        self.statusLine = statusLine
        self.helpKey = helpKey
        self.formLabel = formLabel
        self.formField = formField
        self.focusedFormField = focusedFormField
        self.cursor = cursor
        self.error = error
        self.warning = warning
        self.success = success
        self.usesColor = usesColor
    }

    public static let colored = Theme(
        normal: .plain,
        muted: Style(attributes: .dim),
        border: Style(foreground: .blue),
        focusedBorder: Style(foreground: .cyan, attributes: .bold),
        title: Style(attributes: .bold),
        focusedTitle: Style(foreground: .black, background: .cyan, attributes: .bold),
        tableHeader: Style(foreground: .yellow, attributes: .bold),
        selection: Style(foreground: .black, background: .cyan),
        inactiveSelection: Style(attributes: .reverse),
        statusLine: Style(foreground: .black, background: .white),
        helpKey: Style(foreground: .yellow, attributes: .bold),
        formLabel: Style(attributes: .bold),
        formField: Style(background: .blue, attributes: .underline),
        focusedFormField: Style(foreground: .white, background: .blue, attributes: [.underline, .bold]),
        cursor: Style(attributes: .reverse),
        error: Style(foreground: .red, attributes: .bold),
        warning: Style(foreground: .yellow),
        success: Style(foreground: .green),
        usesColor: true
    )

    public static let monochrome = Theme(
        normal: .plain,
        muted: Style(attributes: .dim),
        border: .plain,
        focusedBorder: Style(attributes: .bold),
        title: Style(attributes: .bold),
        focusedTitle: Style(attributes: [.bold, .reverse]),
        tableHeader: Style(attributes: [.bold, .underline]),
        selection: Style(attributes: .reverse),
        inactiveSelection: Style(attributes: .underline),
        statusLine: Style(attributes: .reverse),
        helpKey: Style(attributes: .bold),
        formLabel: Style(attributes: .bold),
        formField: Style(attributes: .underline),
        focusedFormField: Style(attributes: [.underline, .bold]),
        cursor: Style(attributes: .reverse),
        error: Style(attributes: .bold),
        warning: Style(attributes: .bold),
        success: .plain,
        usesColor: false
    )

    /// The theme for an environment: monochrome when `NO_COLOR` is set to a
    /// non-empty value or the terminal cannot show colours; colored otherwise.
    public static func resolve(environment: [String: String], terminalHasColors: Bool) -> Theme {
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return .monochrome }
        return terminalHasColors ? .colored : .monochrome
    }
}
