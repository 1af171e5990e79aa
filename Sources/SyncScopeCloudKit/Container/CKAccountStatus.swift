/// Whether a user is signed in to iCloud on this device, as CloudKit's `CKAccountStatus`.
public enum CKAccountStatus: Int, Sendable, Hashable {
    case couldNotDetermine = 0
    case available = 1
    case restricted = 2
    case noAccount = 3
    case temporarilyUnavailable = 4
}
