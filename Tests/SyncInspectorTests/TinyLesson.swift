/// A tiny lesson (the iPhone saves a note, the Mac fetches it; the last
/// check fails on purpose) shared by the lesson-mode, lesson and golden tests.
let tinyLessonYAML = """
    name: tiny
    title: "A tiny lesson"
    summary: The Mac fetches what the iPhone saved.
    seed: 3
    users: [alice]
    devices:
      - {name: iPhone, user: alice}
      - {name: Mac, user: alice}
    steps:
      - say: The iPhone creates Notes and saves a note.
      - createZone: {device: iPhone, zone: Notes}
      - save: {device: iPhone, zone: Notes, record: note-1, type: Note, fields: {title: Groceries}}
      - send: iPhone
      - say: The Mac fetches the zone with no token.
      - fetch: {device: Mac, zone: Notes, token: nil}
      - expect: {cache: {device: Mac, zone: Notes, count: 1}}
      - expect: {cache: {device: Mac, zone: Notes, count: 5}}
    """
