import Foundation
import SyncCore

struct CodableField: Codable, Hashable {
    var name: String
    var value: CodableFieldValue
}
