import SyncServerHost
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import HTTPTypes
import NIOCore
import SyncCore

/// The request context: Hummingbird's, plus the connection, so a long-poll
/// can hear that its client went away.
struct ServeRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
