import Crypto
import Foundation
import Synchronization
import SyncCore

/// The server-to-server keys the server takes (`serve --server-key KEYID=public.pem`
/// and the admin route `serverKeys`): a key's ID and its ECDSA P-256 public
/// key. A request signed with one reaches the public database, acting as the
/// key's user (``userName(ofKey:)``). Read without the state lock.
///
/// Each key is kept parsed, as taken: a signed request costs its signature's
/// verification, not a new public key built from bytes every time.
package final class ServerKeyRing: Sendable {
    /// A public key as swift-crypto parsed it. Its keys are not `Sendable`, but
    /// one is never changed once made, and verifying a signature only reads it
    /// (BoringSSL's `ECDSA_do_verify` takes a `const EC_KEY *`), so requests
    /// on several threads may verify with the same one.
    private final class TakenKey: @unchecked Sendable {
        let key: P256.Signing.PublicKey

        init(_ key: P256.Signing.PublicKey) { self.key = key }
    }

    /// Key ID → its public key.
    private let keys = Mutex<[String: TakenKey]>([:])

    package init() {}

    /// The user a key's requests act as: `_` and the key's ID, as Apple's user record names look.
    package static func userName(ofKey keyID: String) -> String { "_" + keyID }

    /// A key's public key from its PEM text, or a sentence saying what is wrong.
    package static func publicKey(keyID: String, pem: String) throws(CloudError) -> P256.Signing.PublicKey {
        guard !keyID.isEmpty, keyID.utf8.count <= 128, keyID.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "=") }) else {
            throw CloudError(.invalidArguments, "A server-to-server key ID is 1 to 128 visible ASCII characters without '/' or '='; got '\(keyID.prefix(40))'.")
        }
        do {
            return try P256.Signing.PublicKey(pemRepresentation: pem)
        } catch {
            throw CloudError(
                .invalidArguments,
                "The public key of server-to-server key '\(keyID)' is not an ECDSA P-256 public key in PEM (make one with 'openssl ec -in eckey.pem -pubout').")
        }
    }

    package func add(_ keyID: String, _ key: P256.Signing.PublicKey) {
        let taken = TakenKey(key)
        keys.withLock { $0[keyID] = taken }
    }

    package func key(_ keyID: String) -> P256.Signing.PublicKey? {
        keys.withLock { $0[keyID] }?.key
    }

    package var keyIDs: [String] { keys.withLock { $0.keys.sorted() } }
}
