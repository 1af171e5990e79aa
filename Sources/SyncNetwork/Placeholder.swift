import SyncCore
