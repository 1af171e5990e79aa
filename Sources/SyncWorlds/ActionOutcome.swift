import Foundation
import SyncCore
import SyncClient

/// What a device action came to.
public enum ActionOutcome: Sendable, Hashable {
    case done(String)
    case failed(CloudError)

    public var error: CloudError? {
        if case .failed(let error) = self { return error }
        return nil
    }
}
