import Crypto
import Foundation
import SyncCore

/// Why a token could not be read.
enum TokenDecodingError: Error, Equatable {
    /// No text at all.
    case empty
    /// Not URL-safe base64, or does not begin as this server's tokens do.
    case notAToken
    /// Begins as a token but ends too early: cut short.
    case truncated
    /// Complete, but the signature does not match: edited, or another server's.
    case badSignature
    /// Signed by this server, yet unreadable (a format this build does not know).
    case malformed
}
