import SyncPostgres
import Testing

/// `--store` / `SYNCSCOPE_STORE` addresses: what they mean, and a sentence
/// naming the problem for each malformed one.
@Suite struct PostgresStoreURLTests {
    @Test func readsEveryPart() throws {
        let url = try PostgresStoreURL(parsing: "postgres://alice:s%40cret@db.example:6543/sync?sslmode=require", environment: [:])
        #expect(url == PostgresStoreURL(user: "alice", password: "s@cret", host: "db.example", port: 6543, database: "sync", tls: .require))
        #expect(url.description == "postgres://alice@db.example:6543/sync?sslmode=require")
    }

    @Test func defaultsThePortAndTakesThePasswordFromPGPASSWORD() throws {
        let url = try PostgresStoreURL(parsing: "postgresql://bob@localhost/team", environment: ["PGPASSWORD": "pw"])
        #expect(url == PostgresStoreURL(user: "bob", password: "pw", host: "localhost", port: 5432, database: "team", tls: .prefer))
        let explicit = try PostgresStoreURL(parsing: "postgres://bob:own@localhost/team", environment: ["PGPASSWORD": "pw"])
        #expect(explicit.password == "own")
    }

    @Test func readsAnIPv6Host() throws {
        let url = try PostgresStoreURL(parsing: "postgres://u@[::1]:5433/d", environment: [:])
        #expect(url.host == "::1")
        #expect(url.port == 5433)
        #expect(url.hostAndPort == "[::1]:5433")
    }

    @Test(arguments: [
        ("mysql://u@h/d", "starts with mysql://, not postgres://"),
        ("u@h:5432/d", "has no scheme"),
        ("postgres://h:5432/d", "names no user"),
        ("postgres://u@:5432/d", "names no host"),
        ("postgres://u@h:5432", "names no database"),
        ("postgres://u@h:5432/", "names no database"),
        ("postgres://u@h:port/d", "has the port 'port', which is not a number from 1 to 65535"),
        ("postgres://u@h:70000/d", "has the port '70000'"),
        ("postgres://u@h/d?sslmode=maybe", "has sslmode=maybe; use disable, prefer or require"),
        ("postgres://u@h/d?timeout=3", "has the option 'timeout'"),
    ])
    func namesWhatIsWrong(_ text: String, _ expected: String) {
        do {
            _ = try PostgresStoreURL(parsing: text, environment: [:])
            Issue.record("\(text) was accepted")
        } catch {
            #expect(error.kind == .malformedURL)
            #expect(error.description.contains(expected), "\(error.description)")
            #expect(error.description.contains("postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE"))
        }
    }

    @Test func neverRepeatsAPassword() {
        do {
            _ = try PostgresStoreURL(parsing: "postgres://u:topsecret@h:x/d", environment: [:])
            Issue.record("accepted")
        } catch {
            #expect(!error.description.contains("topsecret"))
            #expect(error.description.contains("'postgres://u:***@h:x/d'"))
        }
    }

    @Test func readsTheEnvironmentVariable() throws {
        #expect(try PostgresStoreURL.fromEnvironment([:]) == nil)
        #expect(try PostgresStoreURL.fromEnvironment(["SYNCSCOPE_STORE": " "]) == nil)
        #expect(try PostgresStoreURL.fromEnvironment(["SYNCSCOPE_STORE": "postgres://u@h/d"])?.database == "d")
        do {
            _ = try PostgresStoreURL.fromEnvironment(["SYNCSCOPE_STORE": "postgres://u@h"])
            Issue.record("accepted")
        } catch {
            #expect(error.description.hasPrefix("SYNCSCOPE_STORE: The store address 'postgres://u@h' names no database"))
        }
        #expect(PostgresStoreURL.isPostgresAddress("PostgreSQL://x"))
        #expect(!PostgresStoreURL.isPostgresAddress("/var/data"))
    }
}
