/// A server-to-server key, as the admin route `serverKeys` takes it and answers it
/// (**SyncScope extension**; Apple's are added in the CloudKit dashboard):
/// `{"keyID", "publicKey"}`, the public key an ECDSA P-256 key in PEM; the
/// answer adds `userRecordName`, the user the key's requests act as.
public struct WireServerKey: Codable, Sendable, Hashable {
    public var keyID: String
    public var publicKey: String?
    public var userRecordName: String?

    public init(keyID: String, publicKey: String? = nil, userRecordName: String? = nil) {
        self.keyID = keyID
        self.publicKey = publicKey
        self.userRecordName = userRecordName
    }
}
