import SyncCore

/// Which error the latest step that did something ended with.
public struct ErrorExpectation: Sendable, Equatable {
    public enum Match: Sendable, Equatable {
        /// The step succeeded.
        case noError
        /// A `CloudError.Code`, written as its raw value (`changeTokenExpired`).
        case code(CloudError.Code)
        /// A wire `serverErrorCode` (`CHANGE_TOKEN_EXPIRED`, `BAD_REQUEST`).
        case serverErrorCode(String)
    }

    public var match: Match
    /// Text the error's reason must contain.
    public var reasonContains: String?

    public init(_ match: Match, reasonContains: String? = nil) {
        self.match = match
        self.reasonContains = reasonContains
    }
}
