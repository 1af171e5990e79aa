import Foundation
import SyncCore
import SyncWire
import SyncServer

/// A call split into three steps, so that only the middle one holds the
/// server's state lock:
///
/// 1. ``APIDispatcher/prepare(_:)``: the path, the method, the caller and the
///    body are checked and decoded. Reads only the call.
/// 2. ``APIDispatcher/step(_:)``: the engine step, under the lock.
/// 3. ``StepOutcome/answer``: the answer worded and encoded from the step's
///    results alone, after the lock is released (or never, in the journal's replay).
///
/// The calls that make up a server's load (`records/modify`, `changes/zone`)
/// and the common reads (`zones/list`, `changes/database`, `records/lookup`,
/// `records/query`) have routes of their own; every other call is a
/// ``Route/whole`` one: its body is decoded in step 1 and its answer encoded
/// in step 3 too, around its route as it always ran (`APIDispatcher+Whole.swift`).
package struct PreparedCall: Sendable {
    package var call: APICall
    package var route: Route
    /// A ``Route/whole`` call's body, decoded ahead (outside the lock).
    package var decodedBody: DecodedBody? = nil
    /// The call's route in ``WebServicesRoute/table`` (`nil` for a refused
    /// call) and its path's arguments: found once, before the lock.
    package var served: WebServicesRoute? = nil
    package var arguments = RouteArguments()

    package enum Route: Sendable {
        /// Any other call: its body decoded ahead (``PreparedCall/decodedBody``),
        /// its route run in the step, its answer encoded after it.
        case whole
        /// Refused before the engine saw it (a malformed request).
        case refused(APIAnswer)
        case modifyRecords(DatabaseID, APIDispatcher.ModifyRecordsPlan)
        case zoneChanges(DatabaseID, Caller, WireZoneChangesRequest, [ZoneChangesRequest])
        case listZones(DatabaseID, Caller)
        case databaseChanges(DatabaseID, Caller, WireDatabaseChangesRequest)
        case lookupRecords(DatabaseID, Caller, WireRecordsLookupRequest, RecordZoneID, getCurrentSyncToken: Bool)
        case queryRecords(DatabaseID, Caller, WireRecordsQueryRequest, QueryRequest, getCurrentSyncToken: Bool)
    }
}
