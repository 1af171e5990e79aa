import SyncCore

/// An item of a list answer that holds either a result or an error, such as
/// `{"records": [record | error]}` or `{"zones": [zone | error]}`. An item
/// with a `serverErrorCode` key is an error.
public enum WireResult<Success: Codable & Sendable & Hashable>: Codable, Sendable, Hashable {
    case success(Success)
    case failure(WireError)

    private enum Keys: String, CodingKey { case serverErrorCode }

    public init(from decoder: any Decoder) throws {
        let keys = try? decoder.container(keyedBy: Keys.self)
        if let keys, keys.contains(.serverErrorCode) {
            self = .failure(try WireError(from: decoder))
        } else {
            self = .success(try Success(from: decoder))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .success(let value): try value.encode(to: encoder)
        case .failure(let error): try error.encode(to: encoder)
        }
    }
}
