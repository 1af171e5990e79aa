/// How a cell is drawn: colours and attributes.
public struct Style: Hashable, Sendable {
    public var foreground: Color
    public var background: Color
    public var attributes: Attributes

    public init(foreground: Color = .default, background: Color = .default, attributes: Attributes = []) {
        self.foreground = foreground
        self.background = background
        self.attributes = attributes
    }

    public static let plain = Style()
    public static let bold = Style(attributes: .bold)
    public static let reverse = Style(attributes: .reverse)
    public static let underline = Style(attributes: .underline)
    public static let dim = Style(attributes: .dim)

    /// This style with `attributes` added.
    public func adding(_ extra: Attributes) -> Style {
        var copy = self
        copy.attributes.formUnion(extra)
        return copy
    }

    /// This style without any colours (attributes kept).
    public var withoutColors: Style { Style(attributes: attributes) }
}
