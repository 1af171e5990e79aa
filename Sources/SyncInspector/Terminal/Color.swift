/// The small colour palette the inspector uses. `.default` is the
/// terminal's own foreground or background.
public enum Color: UInt8, Hashable, Sendable, CaseIterable {
    case `default`
    case black
    case red
    case green
    case yellow
    case blue
    case magenta
    case cyan
    case white
}
