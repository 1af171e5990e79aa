import SyncCore
import SyncClient

/// What an effect needs of the state when it starts: which device is
/// focused, which zone is shown, the last server reading and the records
/// pane's model. Taken from the state (a few words: no rows), so an effect
/// that waits for the server never holds the panes' rows.
public struct EffectContext: Sendable {
    public var focusedDevice: Int
    public var selectedZone: ZoneKey?
    public var zoneChosen: Bool
    public var reading: ServerReading
    public var recordRows: RecordRowsModel
    /// The event log's filters: the read keeps the latest events that pass
    /// them, so a filtered view reaches back as far as the world keeps events.
    public var eventDevice: String?
    public var eventCategory: EventCategory?

    public init(_ state: InspectorState) {
        focusedDevice = state.focusedDevice
        selectedZone = state.selectedZone
        zoneChosen = state.zoneChosen
        reading = state.world.reading
        recordRows = state.world.recordRows
        eventDevice = state.eventLog.device
        eventCategory = state.eventLog.category
    }
}
