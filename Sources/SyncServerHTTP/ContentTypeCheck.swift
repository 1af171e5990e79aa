import SyncServerHost
import Foundation
import SyncCore

/// A request with a body must say it is JSON: `application/json`, or
/// `text/plain` together with valid credentials (what Apple's clients send),
/// so a cross-site form cannot change anything. A route that takes raw bytes
/// (an asset upload, ``RouteBody/isRaw``) takes any content type.
enum ContentTypeCheck {
    /// Refuses (415) a body that is not JSON.
    static func check(_ headers: RequestHeaders, caller: Identity) throws {
        let contentType = headers.contentType
        // The common case: exactly what the API asks for, whatever the body.
        if contentType == "application/json" || contentType == "application/json; charset=utf-8" { return }
        let length = headers.contentLength.flatMap { Int($0) ?? Int($0.trimmingCharacters(in: .whitespaces)) }
        let hasBody = headers.transferEncoding != nil || (length ?? 0) > 0
        guard hasBody else { return }
        guard let contentType else {
            throw Refusal(status: 415, CloudError(.invalidArguments, "The request has a body but no Content-Type; send the JSON body with 'Content-Type: application/json'."))
        }
        let mediaType = contentType.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        switch mediaType {
        case "application/json":
            return
        case "text/plain" where caller != .anonymous:
            return
        case "text/plain":
            throw Refusal(
                status: 415,
                CloudError(
                    .invalidArguments,
                    "A text/plain body is taken only with valid credentials (a web auth token); send the JSON body with 'Content-Type: application/json'."))
        default:
            throw Refusal(
                status: 415,
                CloudError(.invalidArguments, "The body is '\(mediaType.prefix(60))'; this API reads JSON only: send it with 'Content-Type: application/json'."))
        }
    }
}
