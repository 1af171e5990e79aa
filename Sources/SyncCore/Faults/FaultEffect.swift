import Foundation

/// What a rule does to a call it fires on.
public enum FaultEffect: Sendable, Hashable {
    case throttled(retryAfter: Double)
    case zoneBusy(retryAfter: Double)
    case serviceUnavailable(retryAfter: Double?)
    case quotaExceeded
    case internalError
    /// Each item of the batch fails with probability ½ (at least one does) with `code`.
    case itemFailures(code: CloudError.Code, retryAfter: Double?)
    case ambiguousCommit
    case latency(LatencyDistribution)
    case pushDrop
    case pushDelay(Milliseconds)
    case pushDuplicate
    case pushReorder
    case readLag(Milliseconds)

    public var kind: FaultKind {
        switch self {
        case .throttled: .throttled
        case .zoneBusy: .zoneBusy
        case .serviceUnavailable: .serviceUnavailable
        case .quotaExceeded: .quotaExceeded
        case .internalError: .internalError
        case .itemFailures: .itemFailures
        case .ambiguousCommit: .ambiguousCommit
        case .latency: .latency
        case .pushDrop: .pushDrop
        case .pushDelay: .pushDelay
        case .pushDuplicate: .pushDuplicate
        case .pushReorder: .pushReorder
        case .readLag: .readLag
        }
    }

    /// The whole-request error this effect answers with, if it is one.
    package func error(operation: String) -> CloudError? {
        switch self {
        case .throttled(let seconds):
            return CloudError(
                .requestRateLimited, "Request rate limited (injected fault): retry \(operation) after \(Self.seconds(seconds)).",
                retryAfter: seconds)
        case .zoneBusy(let seconds):
            return CloudError(
                .zoneBusy, "The zone is busy (injected fault): retry \(operation) after \(Self.seconds(seconds)).", retryAfter: seconds)
        case .serviceUnavailable(let seconds):
            let wait = seconds.map { " after \(Self.seconds($0))" } ?? " later"
            return CloudError(.serviceUnavailable, "The service is unavailable (injected fault): try \(operation) again\(wait).", retryAfter: seconds)
        case .quotaExceeded:
            return CloudError(.quotaExceeded, "The user's iCloud storage is full (injected fault); \(operation) was not applied.")
        case .internalError:
            return CloudError(.internalError, "An internal error occurred (injected fault); \(operation) was not applied.")
        default:
            return nil
        }
    }

    package static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }

    /// A short phrase for logs and the inspector: "THROTTLED, retry in 3 s".
    public var summary: String {
        switch self {
        case .throttled(let s): "THROTTLED, retry in \(Self.seconds(s))"
        case .zoneBusy(let s): "ZONE_BUSY, retry in \(Self.seconds(s))"
        case .serviceUnavailable(let s): "TRY_AGAIN_LATER" + (s.map { ", retry in \(Self.seconds($0))" } ?? "")
        case .quotaExceeded: "QUOTA_EXCEEDED"
        case .internalError: "INTERNAL_ERROR"
        case .itemFailures(let code, _): "some items failed with \(code.serverErrorCode)"
        case .ambiguousCommit: "applied, answer lost (ambiguous commit)"
        case .latency(let d): "latency \(d.description)"
        case .pushDrop: "dropped"
        case .pushDelay(let ms): "delayed \(ms) ms"
        case .pushDuplicate: "duplicate"
        case .pushReorder: "reordered"
        case .readLag(let ms): "read lag \(ms) ms"
        }
    }
}
