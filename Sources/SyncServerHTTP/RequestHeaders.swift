import SyncServerHost
import HTTPTypes

/// The request headers the API reads, gathered in one pass over the fields.
///
/// `HTTPFields`' subscript by name scans every field and joins what it finds;
/// reading five headers that way is five scans. Here a field is matched by its
/// canonical (lower-case) name, so a header's spelling does not matter, and a
/// header sent more than once reads as its values joined with `", "`, exactly
/// as the subscript gives it.
struct RequestHeaders: Equatable {
    /// `X-SyncScope-Device`.
    var device: String?
    var authorization: String?
    var contentType: String?
    var contentLength: String?
    var transferEncoding: String?
    /// `X-Apple-CloudKit-Request-KeyID`, `-ISO8601Date` and `-SignatureV1`: a request signed with a server-to-server key.
    var serverKeyID: String?
    var signedDate: String?
    var signature: String?
    var userAgent: String?
    /// `X-SyncScope-Inspector`: an inspector's read, kept out of the request log.
    var inspector: String?
    /// `X-SyncScope-Read-As`: with the server admin token, a read of a user's databases made as that user (an inspector's).
    var readAs: String?

    init(device: String? = nil, authorization: String? = nil, contentType: String? = nil, contentLength: String? = nil, transferEncoding: String? = nil) {
        self.device = device
        self.authorization = authorization
        self.contentType = contentType
        self.contentLength = contentLength
        self.transferEncoding = transferEncoding
    }

    init(_ fields: HTTPFields) {
        for field in fields {
            let name = field.name.canonicalName
            switch name.utf8.count {
            case 10 where name == "user-agent": Self.add(field.value, to: &userAgent)
            case 12 where name == "content-type": Self.add(field.value, to: &contentType)
            case 13 where name == "authorization": Self.add(field.value, to: &authorization)
            case 14 where name == "content-length": Self.add(field.value, to: &contentLength)
            case 17 where name == "transfer-encoding": Self.add(field.value, to: &transferEncoding)
            case 18 where name == "x-syncscope-device": Self.add(field.value, to: &device)
            case 30 where name == "x-apple-cloudkit-request-keyid": Self.add(field.value, to: &serverKeyID)
            case 36 where name == "x-apple-cloudkit-request-iso8601date": Self.add(field.value, to: &signedDate)
            case 36 where name == "x-apple-cloudkit-request-signaturev1": Self.add(field.value, to: &signature)
            case 21 where name == "x-syncscope-inspector": Self.add(field.value, to: &inspector)
            case 19 where name == "x-syncscope-read-as": Self.add(field.value, to: &readAs)
            default: break
            }
        }
    }

    private static func add(_ value: String, to slot: inout String?) {
        if let earlier = slot {
            slot = earlier + ", " + value
        } else {
            slot = value
        }
    }
}
