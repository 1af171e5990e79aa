import Foundation

/// The client code a step stands for, in Swift with CloudKit's own API:
/// written in the lesson (`code:` on a step), or generated from the step
/// where the mapping is mechanical (``Step/clientCode``). Where a step shows
/// a mistake, ``wrong`` is the code that makes it and ``fixed`` the cure.
public struct StepCode: Sendable, Equatable {
    /// What the code is about ("CKFetchRecordZoneChangesOperation").
    public var title: String
    public var fixed: String
    public var wrong: String?

    public init(title: String, fixed: String, wrong: String? = nil) {
        self.title = title
        self.fixed = fixed
        self.wrong = wrong
    }
}
