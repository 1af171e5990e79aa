import Foundation
import SyncCore
import SyncWire

enum StateFileError {
    static func invalid(_ problem: String) -> CloudError {
        CloudError(.invalidArguments, "The state file cannot be imported: \(problem). Nothing was changed.")
    }
}
