import SyncWire

/// One client mistake, named: which, whose, in words, the requests that
/// show it, and the lesson that teaches the fix. `syncscope doctor --json`
/// prints one per line in this shape.
public struct Diagnosis: Sendable, Hashable, Codable {
    public var code: DiagnosisCode
    public var severity: DiagnosisSeverity
    /// The client's short name (`alice · pyicloud`).
    public var client: String
    /// The client's stable key in the server's feed.
    public var clientKey: String
    public var user: String
    public var summary: String
    public var evidence: [Evidence]
    public var lesson: String

    /// One request (or push) that shows the mistake.
    public struct Evidence: Sendable, Hashable, Codable {
        /// The event's number in its node's feed.
        public var seq: UInt64
        public var node: String?
        /// `POST changes/zone → 200`, in words.
        public var what: String

        public init(_ event: WireServerEvent) {
            seq = event.seq
            node = event.node
            if event.kind == "request" {
                let error = event.errorCode.map { " \($0)" } ?? ""
                what = "\(event.method ?? "") \(event.operation ?? event.path ?? "") → \(event.status ?? 0)\(error)"
            } else {
                what = "push \(event.action ?? "") \(event.notificationIDs?.joined(separator: ", ") ?? "")"
            }
        }
    }

    public init(code: DiagnosisCode, client: String, clientKey: String, user: String, summary: String, evidence: [WireServerEvent]) {
        self.code = code
        severity = code.severity
        self.client = client
        self.clientKey = clientKey
        self.user = user
        self.summary = summary
        self.evidence = evidence.map(Evidence.init)
        lesson = code.lesson
    }

    /// One line: severity, code, client, summary, the requests, the lesson.
    public var line: String {
        let requests = evidence.prefix(6).map { "#\($0.seq)" }.joined(separator: ", ") + (evidence.count > 6 ? ", …" : "")
        return "\(severity.rawValue) \(code.rawValue) [\(client)] \(summary) (requests \(requests)); lesson: syncscope lesson \(lesson)"
    }
}
