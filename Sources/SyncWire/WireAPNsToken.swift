import SyncCore

/// `tokens/create` and `tokens/register` requests and answers.
public struct WireAPNsToken: Codable, Sendable, Hashable {
    public var apnsEnvironment: String?
    public var apnsToken: String?
    public var webcourierURL: String?

    public init(apnsEnvironment: String? = nil, apnsToken: String? = nil, webcourierURL: String? = nil) {
        self.apnsEnvironment = apnsEnvironment
        self.apnsToken = apnsToken
        self.webcourierURL = webcourierURL
    }
}
