import Foundation
import SyncCore

/// One step of a coding path, kept as a linked list so that descending into
/// a value costs one small allocation and no array copy.
final class JSONPathNode: Sendable {
    let parent: JSONPathNode?
    let key: AnyCodingKey

    init(parent: JSONPathNode?, key: AnyCodingKey) {
        self.parent = parent
        self.key = key
    }

    static func path(_ node: JSONPathNode?) -> [any CodingKey] {
        var keys: [any CodingKey] = []
        var current = node
        while let step = current {
            keys.append(step.key)
            current = step.parent
        }
        return keys.reversed()
    }
}
