import Foundation

/// A fault that was injected, for logs, transcripts, the inspector and tests.
public struct InjectedFault: Sendable, Hashable, CustomStringConvertible {
    public var time: Milliseconds
    /// The rule's number in the injector (1, 2, 3… in the order rules were added).
    public var ruleID: Int
    public var kind: FaultKind
    public var operation: String
    public var user: String
    public var deviceID: String?
    /// What happened, in words: "THROTTLED, retry in 3 s", "dropped", "latency 120 ms".
    public var detail: String

    public init(time: Milliseconds, ruleID: Int, kind: FaultKind, operation: String, user: String, deviceID: String?, detail: String) {
        self.time = time
        self.ruleID = ruleID
        self.kind = kind
        self.operation = operation
        self.user = user
        self.deviceID = deviceID
        self.detail = detail
    }

    public var description: String {
        "fault #\(ruleID) \(kind.rawValue) on \(operation) for \(deviceID ?? user): \(detail)"
    }
}
