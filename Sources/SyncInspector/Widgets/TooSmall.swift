/// What to show instead of the interface when the terminal is too small
/// for it: a centred message saying how large it must be.
public enum TooSmallScreen {
    /// The size the inspector needs.
    public static let minimumSize = Size(width: 80, height: 24)

    /// "Enlarge the window to at least 80×24 (now 79×23)".
    public static func message(for size: Size, minimum: Size = minimumSize) -> String {
        "Enlarge the window to at least \(minimum.width)×\(minimum.height) (now \(size.width)×\(size.height))"
    }

    /// A buffer of `size` with the message wrapped and centred.
    public static func render(size: Size, minimum: Size = minimumSize, theme: Theme = .monochrome) -> CellBuffer {
        var buffer = CellBuffer(size: size, style: theme.normal)
        guard size.width > 0, size.height > 0 else { return buffer }
        let lines = TextWrap.wrap(message(for: size, minimum: minimum), width: size.width)
        let top = max(0, (size.height - lines.count) / 2)
        for (index, line) in lines.prefix(size.height).enumerated() {
            let x = (size.width - TextWidth.of(line)) / 2
            buffer.write(line, x: max(0, x), y: top + index, style: theme.title)
        }
        return buffer
    }
}
