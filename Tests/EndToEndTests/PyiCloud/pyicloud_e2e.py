"""Drives `syncscope serve` with pyicloud's own CloudKit client code.

pyicloud is a Python client of Apple's iCloud web services. This script uses
its CloudKit request and parsing code unchanged (its typed container client,
and its Reminders and Notes services); only two things are replaced, as a
user pointing it at a local server would: the base URL (the server's address
instead of Apple's) and authentication (a `requests` session that sends the
server's web auth token as `Authorization: Bearer` instead of Apple's
sign-in cookies).

Usage: python pyicloud_e2e.py BASE_URL WEB_AUTH_TOKEN
Prints one line per check and exits non-zero on the first failure.
"""

from __future__ import annotations

import base64
import sys
import traceback

import requests

from pyicloud.common.cloudkit import (
    CKQueryFilterBy,
    CKQueryObject,
    CKQuerySortBy,
    CKRecord,
    CKTombstoneRecord,
    CKZoneChangesZoneReq,
    CKZoneID,
    CKZoneIDReq,
)
from pyicloud.common.cloudkit.client import CloudKitApiError, CloudKitContainerClient
from pyicloud.common.cloudkit.models import CKModifyOperation, CKWriteRecord
from pyicloud.services.notes.service import NotesService
from pyicloud.services.reminders.service import RemindersService

BASE_URL, TOKEN = sys.argv[1].rstrip("/"), sys.argv[2]
CHECKS = 0


def check(condition: bool, what: str) -> None:
    global CHECKS
    if not condition:
        raise AssertionError(what)
    CHECKS += 1
    print(f"ok {what}", flush=True)


def session() -> requests.Session:
    s = requests.Session()
    s.headers["Authorization"] = f"Bearer {TOKEN}"
    return s


def client(container: str, environment: str = "development") -> CloudKitContainerClient:
    return CloudKitContainerClient(
        f"{BASE_URL}/database/1/{container}/{environment}/private",
        session(),
        {"getCurrentSyncToken": True, "remapEnums": True},
        validation_extra="allow",
    )


def create_zone(ck: CloudKitContainerClient, name: str) -> None:
    ck.raw_post("/zones/modify", {"operations": [{"operationType": "create", "zone": {"zoneID": {"zoneName": name}}}]})


def op(kind: str, name: str, record_type: str, fields: dict, tag: str | None = None) -> CKModifyOperation:
    return CKModifyOperation(
        operationType=kind,
        record=CKWriteRecord(recordName=name, recordType=record_type, fields=fields, recordChangeTag=tag),
    )


def enc(text: str) -> dict:
    return {"type": "ENCRYPTED_BYTES", "value": base64.b64encode(text.encode()).decode()}


def generic_client() -> None:
    ck = client("iCloud.com.example.PyiCloud")
    create_zone(ck, "Notes")
    zone = CKZoneIDReq(zoneName="Notes")

    # records/modify
    saved = ck.modify(
        operations=[
            op("create", f"note-{i}", "Note", {
                "title": {"type": "STRING", "value": f"Title {i}"},
                "rank": {"type": "INT64", "value": 10 - i},
                "TitleEncrypted": enc(f"secret {i}"),
            })
            for i in range(5)
        ] + [op("create", "tag-1", "Tag", {"label": {"type": "STRING", "value": "work"}})],
        zone_id=zone,
    )
    check(len([r for r in saved.records if isinstance(r, CKRecord)]) == 6, "records/modify saves six records, parsed as CKRecord")

    # records/lookup
    found = ck.lookup(["note-2", "missing"], zone_id=zone)
    record = found.records[0]
    check(isinstance(record, CKRecord) and record.fields.get_value("title") == "Title 2", "records/lookup returns the record's fields")
    check(record.fields.get_value("TitleEncrypted") == b"secret 2", "ENCRYPTED_BYTES round-trips as pyicloud reads it")
    check(getattr(found.records[1], "serverErrorCode", None) == "NOT_FOUND", "a missing record is a NOT_FOUND item")
    check(bool(found.syncToken), "records/lookup with getCurrentSyncToken carries the zone's syncToken")

    # records/query with a filter, sort and paging
    query = CKQueryObject(recordType="Note", sortBy=[CKQuerySortBy(fieldName="rank", ascending=True)])
    names: list[str] = []
    marker = None
    pages = 0
    while True:
        page = ck.query(query=query, zone_id=zone, results_limit=2, continuation=marker)
        pages += 1
        names += [r.recordName for r in page.records if isinstance(r, CKRecord)]
        marker = page.continuationMarker
        if not marker:
            break
    check(names == [f"note-{i}" for i in reversed(range(5))], f"records/query pages in sort order, none skipped or repeated: {names}")
    check(pages == 3, "five records at two per page take three pages")
    filtered = ck.query(
        query=CKQueryObject(
            recordType="Note",
            filterBy=[CKQueryFilterBy(comparator="GREATER_THAN_OR_EQUALS", fieldName="rank", fieldValue={"type": "INT64", "value": 8})],
        ),
        zone_id=zone,
    )
    check(sorted(r.recordName for r in filtered.records) == ["note-0", "note-1", "note-2"], "records/query filterBy selects by value")
    token = ck.query_sync_token(query=CKQueryObject(recordType="Note"), zone_id=zone)
    check(bool(token), "records/query with getCurrentSyncToken carries the zone's syncToken")

    # changes/zone: deletions in Apple's shape, desiredRecordTypes
    first = list(ck.iter_changes(zone_req=CKZoneChangesZoneReq(zoneID=CKZoneID(zoneName="Notes"))))
    check(sum(len(z.records) for z in first) == 6, "changes/zone from no token lists every record")
    since = first[-1].syncToken
    current = ck.lookup(["note-3"], zone_id=zone).records[0]
    ck.modify(
        operations=[
            op("forceDelete", "note-1", "Note", {}),
            op("update", "note-3", "Note", {"title": {"type": "STRING", "value": "Changed"}}, tag=current.recordChangeTag),
            op("forceDelete", "tag-1", "Tag", {}),
        ],
        zone_id=zone,
    )
    changes = ck.changes(zone_req=CKZoneChangesZoneReq(zoneID=CKZoneID(zoneName="Notes"), syncToken=since))
    records = changes.zones[0].records
    tombstones = [r.recordName for r in records if isinstance(r, CKTombstoneRecord)]
    updates = [r.recordName for r in records if isinstance(r, CKRecord)]
    check(sorted(tombstones) == ["note-1", "tag-1"], f"deletions come back as tombstones, not updates: {tombstones}")
    check(updates == ["note-3"], "the update comes back as a record")
    typed = ck.changes(zone_req=CKZoneChangesZoneReq(zoneID=CKZoneID(zoneName="Notes"), syncToken=since, desiredRecordTypes=["Tag"]))
    check([r.recordName for r in typed.zones[0].records] == ["tag-1"], "desiredRecordTypes keeps only that type")

    # zones/list
    zones = ck.zones_list()
    check(any(z.zoneID.zoneName == "Notes" and z.syncToken for z in zones.zones), "zones/list lists the zone with its syncToken")

    # an error answer is Apple's shape, and pyicloud raises it with the code
    try:
        ck.changes(zone_req=CKZoneChangesZoneReq(zoneID=CKZoneID(zoneName="Nowhere")))
        check(False, "changes/zone on a missing zone fails")
    except CloudKitApiError as error:
        check("ZONE_NOT_FOUND" in str(error), f"changes/zone on a missing zone raises ZONE_NOT_FOUND: {error}")


def reminders() -> None:
    ck = client("com.apple.reminders", "production")
    create_zone(ck, "Reminders")
    zone = CKZoneIDReq(zoneName="Reminders")
    ck.modify(
        operations=[
            op("create", "List/L1", "List", {"Name": {"type": "STRING", "value": "Groceries"}, "Color": {"type": "STRING", "value": "red"}}),
            op("create", "List/L2", "List", {"Name": {"type": "STRING", "value": "Work"}}),
            op("create", "Reminder/R1", "Reminder", {
                "List": {"type": "REFERENCE", "value": {"recordName": "List/L1", "action": "VALIDATE"}},
                "Priority": {"type": "INT64", "value": 1},
                "Completed": {"type": "INT64", "value": 0},
            }),
            op("create", "Reminder/R2", "Reminder", {
                "List": {"type": "REFERENCE", "value": {"recordName": "List/L1", "action": "VALIDATE"}},
            }),
        ],
        zone_id=zone,
    )
    service = RemindersService(BASE_URL, session(), {})
    lists = sorted(l.title for l in service.lists())
    check(lists == ["Groceries", "Work"], f"Reminders: lists() reads List records through changes/zone: {lists}")
    reminder = service.get("R1")
    check(reminder.id == "Reminder/R1" and reminder.list_id == "List/L1" and reminder.priority == 1, "Reminders: get() looks a reminder up")
    cursor = service.sync_cursor()
    check(bool(cursor), "Reminders: sync_cursor() gets the zone's token from a query")
    ck.modify(operations=[op("forceDelete", "Reminder/R2", "Reminder", {})], zone_id=zone)
    events = list(service.iter_changes(since=cursor))
    check([(e.type, e.reminder_id) for e in events] == [("deleted", "Reminder/R2")], f"Reminders: iter_changes() sees the deletion: {events}")


def notes() -> None:
    ck = client("com.apple.notes", "production")
    create_zone(ck, "Notes")
    zone = CKZoneIDReq(zoneName="Notes")
    ck.modify(
        operations=[
            op("create", "F1", "Folder", {"TitleEncrypted": enc("Recipes")}),
            op("create", "N1", "Note", {
                "TitleEncrypted": enc("Pancakes"), "SnippetEncrypted": enc("Flour, eggs"),
                "ModificationDate": {"type": "TIMESTAMP", "value": 1_700_000_000_000},
                "Folder": {"type": "REFERENCE", "value": {"recordName": "F1", "action": "VALIDATE"}},
            }),
            op("create", "N2", "Note", {"TitleEncrypted": enc("Waffles")}),
        ],
        zone_id=zone,
    )
    service = NotesService(BASE_URL, session(), {})
    folders = [(f.id, f.name) for f in service.folders()]
    check(folders == [("F1", "Recipes")], f"Notes: folders() reads Folder records: {folders}")
    summaries = {n.id: n for n in service.iter_all()}
    check(sorted(summaries) == ["N1", "N2"], "Notes: iter_all() lists the notes, not the folder")
    check(summaries["N1"].title == "Pancakes" and summaries["N1"].folder_name == "Recipes", "Notes: a note's title and folder name")
    cursor = service.sync_cursor()
    check(bool(cursor), "Notes: sync_cursor()")
    check(list(service.iter_changes(since=cursor)) == [], "Notes: nothing changed since the cursor")
    ck.modify(operations=[op("forceDelete", "N2", "Note", {})], zone_id=zone)
    events = [(e.type, e.note.id) for e in service.iter_changes(since=cursor)]
    check(events == [("deleted", "N2")], f"Notes: iter_changes() sees the deletion as a deletion: {events}")


if __name__ == "__main__":
    try:
        generic_client()
        reminders()
        notes()
    except Exception:
        traceback.print_exc()
        print(f"FAILED after {CHECKS} checks", flush=True)
        sys.exit(1)
    print(f"{CHECKS} passed, 0 failed", flush=True)
