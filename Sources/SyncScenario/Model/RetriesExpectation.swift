import SyncCore

/// Checks the retries a device's sync engine made since the scenario began
/// (`expect: {retries: {device: iPhone, count: 2, code: THROTTLED, waited: 6s}}`).
public struct RetriesExpectation: Sendable, Equatable {
    public var device: String
    /// Exactly this many retries.
    public var count: Int?
    /// At least this many.
    public var atLeast: Int?
    /// At most this many.
    public var atMost: Int?
    /// Only retries after this error count (a `CloudError` code or a server code such as `THROTTLED`).
    public var code: String?
    /// The waits before those retries add up to exactly this long.
    public var waited: Milliseconds?
    /// Every wait was the server's `retryAfter` (true) or none was (false).
    public var honoredRetryAfter: Bool?

    public init(
        device: String, count: Int? = nil, atLeast: Int? = nil, atMost: Int? = nil, code: String? = nil, waited: Milliseconds? = nil,
        honoredRetryAfter: Bool? = nil
    ) {
        self.device = device
        self.count = count
        self.atLeast = atLeast
        self.atMost = atMost
        self.code = code
        self.waited = waited
        self.honoredRetryAfter = honoredRetryAfter
    }
}
