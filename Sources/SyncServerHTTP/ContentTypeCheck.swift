import SyncServerHost
import Foundation
import SyncCore

/// A body is read as JSON whatever its content type when the request carries
/// valid credentials (Apple's clients send `text/plain`, curl sends its form
/// type, some send none). Without credentials only `application/json` is
/// taken, so a cross-site form (which cannot send that type, nor credentials
/// of ours) cannot change anything. A route that takes raw bytes (an asset
/// upload, ``RouteBody/isRaw``) takes any content type.
enum ContentTypeCheck {
    /// Refuses (415) a body without credentials that does not say it is JSON.
    static func check(_ headers: RequestHeaders, caller: Identity) throws {
        // With credentials any body is read as JSON (and refused with 400 if it is not).
        if caller != .anonymous { return }
        let contentType = headers.contentType
        // The common case: exactly what the API asks for, whatever the body.
        if contentType == "application/json" || contentType == "application/json; charset=utf-8" { return }
        let length = headers.contentLength.flatMap { Int($0) ?? Int($0.trimmingCharacters(in: .whitespaces)) }
        let hasBody = headers.transferEncoding != nil || (length ?? 0) > 0
        guard hasBody else { return }
        guard let contentType else {
            throw Refusal(
                status: 415,
                CloudError(
                    .invalidArguments,
                    "The request has a body but no Content-Type and no credentials; send the JSON body with 'Content-Type: application/json' (with a web auth token, any content type is read as JSON)."))
        }
        let mediaType = contentType.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        guard mediaType == "application/json" else {
            throw Refusal(
                status: 415,
                CloudError(
                    .invalidArguments,
                    "The body is '\(mediaType.prefix(60))' and the request has no credentials; without them this API reads only 'Content-Type: application/json' (with a web auth token, any content type is read as JSON)."))
        }
    }
}
