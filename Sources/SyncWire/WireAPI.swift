import SyncCore

/// The request and answer bodies of the HTTP API (CloudKit Web Services'
/// shapes; the package's API reference documents each), shared by the server
/// and the network client.

// MARK: Zones

/// A zone in `zones/modify` and `zones/list`: `{"zoneID", "syncToken"?}`.
public struct WireZone: Codable, Sendable, Hashable {
    public var zoneID: WireZoneID
    public var syncToken: ServerChangeToken?
    public var deleted: Bool?

    public init(zoneID: WireZoneID, syncToken: ServerChangeToken? = nil, deleted: Bool? = nil) {
        self.zoneID = zoneID
        self.syncToken = syncToken
        self.deleted = deleted
    }
}

/// `zones/modify`: `{"operations": [{"operationType": "create"|"delete", "zone": {"zoneID"}}]}`.
public struct WireZonesModifyRequest: Codable, Sendable, Hashable {
    public struct Operation: Codable, Sendable, Hashable {
        public var operationType: String
        public var zone: WireZone

        public init(operationType: String, zone: WireZone) {
            self.operationType = operationType
            self.zone = zone
        }
    }

    public var operations: [Operation]

    public init(operations: [Operation]) { self.operations = operations }
}

/// `{"zones": [zone | error]}`: the answer of `zones/modify`, `zones/list` and `zones/lookup`.
public struct WireZonesResponse: Codable, Sendable, Hashable {
    public var zones: [WireResult<WireZone>]

    public init(zones: [WireResult<WireZone>]) { self.zones = zones }
}

/// `zones/lookup`: Apple's `{"zones": [{"zoneName", "ownerRecordName"?}]}`;
/// the older form of ours, `{"zones": [{"zoneID": {...}}]}`, is still read.
public struct WireZonesLookupRequest: Codable, Sendable, Hashable {
    /// One zone asked for: a zone ID, written as Apple writes it.
    public struct Item: Codable, Sendable, Hashable {
        public var zoneID: WireZoneID

        public init(zoneID: WireZoneID) { self.zoneID = zoneID }

        private enum Keys: String, CodingKey { case zoneID }

        public init(from decoder: any Decoder) throws {
            let keys = try decoder.container(keyedBy: Keys.self)
            if let nested = try keys.decodeIfPresent(WireZoneID.self, forKey: .zoneID) {
                zoneID = nested
            } else {
                zoneID = try WireZoneID(from: decoder)
            }
        }

        public func encode(to encoder: any Encoder) throws { try zoneID.encode(to: encoder) }
    }

    public var zones: [Item]

    public init(zones: [Item]) { self.zones = zones }
}

/// `zones/share` (our extension): `{"zoneID", "operationType": "share"|"revoke", "participants"}`.
public struct WireZoneShareRequest: Codable, Sendable, Hashable {
    public var zoneID: WireZoneID
    public var operationType: String
    public var participants: [String]

    public init(zoneID: WireZoneID, operationType: String, participants: [String]) {
        self.zoneID = zoneID
        self.operationType = operationType
        self.participants = participants
    }
}

/// The answer of `zones/share`: who the zone is shared with now.
public struct WireZoneShareResponse: Codable, Sendable, Hashable {
    public var zoneID: WireZoneID
    public var participants: [String]

    public init(zoneID: WireZoneID, participants: [String]) {
        self.zoneID = zoneID
        self.participants = participants
    }
}

// MARK: Records

/// `records/modify`.
public struct WireRecordsModifyRequest: Codable, Sendable, Hashable {
    public struct Operation: Codable, Sendable, Hashable {
        public var operationType: String
        public var record: WireRecord

        public init(operationType: String, record: WireRecord) {
            self.operationType = operationType
            self.record = record
        }
    }

    public var operations: [Operation]
    public var zoneID: WireZoneID?
    public var atomic: Bool?
    public var desiredKeys: [String]?
    /// Base64.
    public var clientChangeTokenData: String?

    public init(
        operations: [Operation], zoneID: WireZoneID?, atomic: Bool? = nil, desiredKeys: [String]? = nil, clientChangeTokenData: String? = nil
    ) {
        self.operations = operations
        self.zoneID = zoneID
        self.atomic = atomic
        self.desiredKeys = desiredKeys
        self.clientChangeTokenData = clientChangeTokenData
    }
}

/// `{"records": [record | error], "syncToken"?}`: the answer of
/// `records/modify` and `records/lookup`. `syncToken` (the zone's current
/// token) is there when the request asked `getCurrentSyncToken=true`.
public struct WireRecordsResponse: Codable, Sendable, Hashable {
    public var records: [WireResult<WireRecord>]
    public var syncToken: ServerChangeToken?

    public init(records: [WireResult<WireRecord>], syncToken: ServerChangeToken? = nil) {
        self.records = records
        self.syncToken = syncToken
    }
}

/// `records/lookup`: `{"records": [{"recordName"}], "zoneID", "desiredKeys"?}`.
public struct WireRecordsLookupRequest: Codable, Sendable, Hashable {
    public struct Item: Codable, Sendable, Hashable {
        public var recordName: String

        public init(recordName: String) { self.recordName = recordName }
    }

    public var records: [Item]
    public var zoneID: WireZoneID?
    public var desiredKeys: [String]?
    public var numbersAsStrings: Bool?

    public init(records: [Item], zoneID: WireZoneID?, desiredKeys: [String]? = nil, numbersAsStrings: Bool? = nil) {
        self.records = records
        self.zoneID = zoneID
        self.desiredKeys = desiredKeys
        self.numbersAsStrings = numbersAsStrings
    }
}

// MARK: Changes

/// `changes/database`: `{"syncToken"?, "resultsLimit"?}`.
public struct WireDatabaseChangesRequest: Codable, Sendable, Hashable {
    public var syncToken: ServerChangeToken?
    public var resultsLimit: Int?

    public init(syncToken: ServerChangeToken? = nil, resultsLimit: Int? = nil) {
        self.syncToken = syncToken
        self.resultsLimit = resultsLimit
    }
}

/// `changes/zone`.
public struct WireZoneChangesRequest: Codable, Sendable, Hashable {
    public struct Zone: Codable, Sendable, Hashable {
        public var zoneID: WireZoneID
        public var syncToken: ServerChangeToken?
        public var resultsLimit: Int?
        public var desiredKeys: [String]?
        /// Only records of these types (deletions included, by the type the record had).
        public var desiredRecordTypes: [String]?
        public var numbersAsStrings: Bool?

        public init(
            zoneID: WireZoneID, syncToken: ServerChangeToken? = nil, resultsLimit: Int? = nil, desiredKeys: [String]? = nil,
            desiredRecordTypes: [String]? = nil, numbersAsStrings: Bool? = nil
        ) {
            self.zoneID = zoneID
            self.syncToken = syncToken
            self.resultsLimit = resultsLimit
            self.desiredKeys = desiredKeys
            self.desiredRecordTypes = desiredRecordTypes
            self.numbersAsStrings = numbersAsStrings
        }
    }

    public var zones: [Zone]
    public var resultsLimit: Int?
    public var desiredKeys: [String]?
    public var desiredRecordTypes: [String]?
    public var numbersAsStrings: Bool?

    public init(
        zones: [Zone], resultsLimit: Int? = nil, desiredKeys: [String]? = nil, desiredRecordTypes: [String]? = nil,
        numbersAsStrings: Bool? = nil
    ) {
        self.zones = zones
        self.resultsLimit = resultsLimit
        self.desiredKeys = desiredKeys
        self.desiredRecordTypes = desiredRecordTypes
        self.numbersAsStrings = numbersAsStrings
    }
}

// MARK: Subscriptions

/// `subscriptions/modify`.
public struct WireSubscriptionsModifyRequest: Codable, Sendable, Hashable {
    public struct Operation: Codable, Sendable, Hashable {
        public var operationType: String
        public var subscription: WireSubscription

        public init(operationType: String, subscription: WireSubscription) {
            self.operationType = operationType
            self.subscription = subscription
        }
    }

    public var operations: [Operation]

    public init(operations: [Operation]) { self.operations = operations }
}

/// `subscriptions/lookup`: `{"subscriptions": [{"subscriptionID"}]}`.
public struct WireSubscriptionsLookupRequest: Codable, Sendable, Hashable {
    public struct Item: Codable, Sendable, Hashable {
        public var subscriptionID: String

        public init(subscriptionID: String) { self.subscriptionID = subscriptionID }
    }

    public var subscriptions: [Item]

    public init(subscriptions: [Item]) { self.subscriptions = subscriptions }
}

/// `{"subscriptions": [subscription | error]}`.
public struct WireSubscriptionsResponse: Codable, Sendable, Hashable {
    public var subscriptions: [WireResult<WireSubscription>]

    public init(subscriptions: [WireResult<WireSubscription>]) { self.subscriptions = subscriptions }
}

// MARK: Push

/// `tokens/create` and `tokens/register` requests and answers.
public struct WireAPNsToken: Codable, Sendable, Hashable {
    public var apnsEnvironment: String?
    public var apnsToken: String?
    public var webcourierURL: String?

    public init(apnsEnvironment: String? = nil, apnsToken: String? = nil, webcourierURL: String? = nil) {
        self.apnsEnvironment = apnsEnvironment
        self.apnsToken = apnsToken
        self.webcourierURL = webcourierURL
    }
}

// MARK: Admin

/// `admin/purgeZone`: `{"database", "zoneID"}`.
public struct WirePurgeZoneRequest: Codable, Sendable, Hashable {
    public var database: String?
    public var zoneID: WireZoneID

    public init(database: String? = nil, zoneID: WireZoneID) {
        self.database = database
        self.zoneID = zoneID
    }
}

/// `admin/compact`: `{"database"?, "zoneID"?, "keepLast"?}`.
public struct WireCompactRequest: Codable, Sendable, Hashable {
    public var database: String?
    public var zoneID: WireZoneID?
    public var keepLast: Int?

    public init(database: String? = nil, zoneID: WireZoneID? = nil, keepLast: Int? = nil) {
        self.database = database
        self.zoneID = zoneID
        self.keepLast = keepLast
    }
}

/// An empty JSON object, the answer of calls that return nothing.
public struct WireEmpty: Codable, Sendable, Hashable {
    public init() {}
}
