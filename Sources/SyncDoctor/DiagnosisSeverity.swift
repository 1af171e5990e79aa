/// How bad a client mistake is: a `warning` wastes work or time; an `error` loses or corrupts data, or never converges.
public enum DiagnosisSeverity: String, Sendable, Hashable, Codable, Comparable, CaseIterable {
    case warning
    case error

    public static func < (a: DiagnosisSeverity, b: DiagnosisSeverity) -> Bool {
        a == .warning && b == .error
    }
}
