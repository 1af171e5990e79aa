import Foundation
#if canImport(Glibc)
import Glibc
#endif
@testable import SyncServerHost
@testable import SyncServerSQLite
import SyncServerHTTP
import Testing

/// `syncscope serve` checks its address before it opens its data folder.
@Suite struct ListenCheckTests {
    @Test func aPortInUseIsRefusedWithASentenceBeforeAnythingStarts() throws {
        // Hold a port the way another server would.
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && listen(descriptor, 1) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        try #require(bound)
        let port = Int(UInt16(bigEndian: address.sin_port))
        #expect {
            try ListenCheck.check(host: "127.0.0.1", port: port)
        } throws: { error in
            (error as? ServeError)?.description
                == "Port \(port) is already in use on 127.0.0.1 (another syncscope serve?). Pass --port with another number, or --port 0 to pick a free one."
        }
        #expect(throws: Never.self) { try ListenCheck.check(host: "127.0.0.1", port: 0) }
        #expect {
            try ListenCheck.check(host: "no-such-host.invalid", port: 0)
        } throws: { error in
            (error as? ServeError)?.description.hasPrefix("Cannot listen on 'no-such-host.invalid': it is not an address of this machine") == true
        }
    }
}
