import Crypto
import Foundation
import SyncCore
import SyncWire

/// Signs requests with a server-to-server key, as Apple documents it and as
/// back-end tools do: the key's ID, the date, and an ECDSA P-256 signature of
/// `date:base64(sha256(body)):subpath` (``WireRequestSignature``). Such a
/// request reaches the public database only.
public struct ServerKeySigner: Sendable {
    public let keyID: String
    /// The private key's raw bytes (swift-crypto's keys are not `Sendable`).
    let privateKey: Data

    public init(keyID: String, privateKey: P256.Signing.PrivateKey) {
        self.keyID = keyID
        self.privateKey = privateKey.rawRepresentation
    }

    /// A new key pair: its signer, and its public key in PEM for `serve --server-key`.
    public static func newKey(keyID: String) -> (signer: ServerKeySigner, publicKeyPEM: String) {
        let key = P256.Signing.PrivateKey()
        return (ServerKeySigner(keyID: keyID, privateKey: key), key.publicKey.pemRepresentation)
    }

    /// A signer from the private key's PEM (`openssl ecparam -name prime256v1 -genkey -noout`, SEC1 or PKCS#8).
    public init(keyID: String, privateKeyPEM: String) throws(CloudError) {
        do {
            self.init(keyID: keyID, privateKey: try P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM))
        } catch {
            throw CloudError(.invalidArguments, "The private key of server-to-server key '\(keyID)' is not an ECDSA P-256 private key in PEM.")
        }
    }

    /// The three headers that sign a request with this body to this path (no query), at `date`.
    public func headers(body: Data, subpath: String, date: Date = Date()) -> [(name: String, value: String)] {
        let dateText = WireRequestSignature.dateText(date)
        let message = WireRequestSignature.message(date: dateText, bodySHA256: SHA256.hash(data: body), subpath: subpath)
        let key = try? P256.Signing.PrivateKey(rawRepresentation: privateKey)
        let signature = (try? key?.signature(for: message).derRepresentation.base64EncodedString()) ?? ""
        return [
            (WireRequestSignature.keyIDHeader, keyID), (WireRequestSignature.dateHeader, dateText), (WireRequestSignature.signatureHeader, signature),
        ]
    }
}
