import Hummingbird
import Logging
import GRDB
import SyncServer
