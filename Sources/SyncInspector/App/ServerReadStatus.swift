/// What the message line says about reading a server that is not in process
/// (a device on `syncscope serve`): a failure stands while the server cannot
/// be read, and goes as soon as a read works again, so the line never keeps
/// a stale "Cannot read the server" after recovery.
extension InspectorState {
    /// A read of the server failed: say why, and remember that it did.
    public mutating func serverReadFailed(source: String, reason: String) {
        let text = "Cannot read the server (\(source)): \(reason)"
        serverReadProblem = text
        message = InspectorMessage(text, kind: .error)
        needsRedraw = true
    }

    /// A read of the server worked. If the message line still shows the
    /// failure, it says the server answers again; a newer message (a key's
    /// outcome) is left alone.
    public mutating func serverReadSucceeded(source: String) {
        guard let problem = serverReadProblem else { return }
        serverReadProblem = nil
        if message?.text == problem {
            message = InspectorMessage("The server answers again (\(source)): the panes show what it holds now.", kind: .success)
            needsRedraw = true
        }
    }
}
