import Foundation
import SyncCore
import SyncServer

/// The rows a node needs were folded into the stored checkpoint: it restores the checkpoint instead.
package struct StoreHistoryFolded: Error {
    package init() {}
}
