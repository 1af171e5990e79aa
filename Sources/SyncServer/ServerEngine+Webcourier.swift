import Foundation
import SyncCore

/// The secret part of a push channel's webcourierURL.
///
/// With Apple, the webcourierURL is the credential: CloudKit JS polls it as it
/// is, with nothing else. Its secret part is 256 bits derived from the
/// engine's signing key and the device ID (HMAC-SHA256), so it needs no
/// storage, a replayed journal gives the same one, and nobody without the key
/// can make one from a device ID (which is no secret: records' `modified`
/// fields carry it).
extension ServerEngine {
    /// The webcourierURL secret of a device: 64 lowercase hex digits.
    public func webcourierSecret(forDevice deviceID: String) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in signer.derivedSecret("webcourier", deviceID) {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Whether `secret` is the webcourierURL secret of the device, compared in constant time.
    public func isWebcourierSecret(_ secret: String, forDevice deviceID: String) -> Bool {
        TokenSigner.constantTimeEquals(Array(secret.utf8), Array(webcourierSecret(forDevice: deviceID).utf8))
    }
}
