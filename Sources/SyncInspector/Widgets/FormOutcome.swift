/// What a key did to a form.
public enum FormOutcome: Hashable, Sendable {
    /// The form does not use this key (Ctrl-C, F-keys, resize...): the app may.
    case unhandled
    /// The form used the key but nothing changed (Backspace at the start...).
    case unchanged
    /// Text, cursor or focus changed: redraw.
    case changed
    /// Enter: the app reads `values` and closes (or sets `message`).
    case submitted
    /// Esc: the app closes the form.
    case cancelled
}
