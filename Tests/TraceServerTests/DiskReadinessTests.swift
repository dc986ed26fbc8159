import Foundation
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing
@testable import TraceServer

/// `/readyz` counts the replica's own disk: below the reserve uploads to it are refused, so a load
/// balancer reading readiness should send them elsewhere, and the answer names the disk.
struct DiskReadinessTests {
    final class Disk: Sendable {
        let free = Atomic<Int64>(0)
    }

    @Test func aDiskUnderItsReserveMakesTheReplicaNotReadyNamingTheDisk() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let disk = Disk()
        var options = scratch.options()
        options.minFreeDiskBytes = 64 << 20
        disk.free.store(options.minFreeDiskBytes + (512 << 20), ordering: .relaxed)
        options.freeDiskBytes = { disk.free.load(ordering: .relaxed) }
        try await scratch.withServer(options) { client in
            let ready = try await client.get("/readyz")
            #expect(ready.status == .ok, "\(ready.text)")
            let services = try #require(try ready.json()["services"] as? [[String: Any]])
            #expect(services.contains { ($0["name"] as? String)?.hasPrefix("replica disk") == true && $0["ok"] as? Bool == true })

            disk.free.store(10 << 20, ordering: .relaxed)
            let full = try await client.get("/readyz")
            #expect(full.status == .serviceUnavailable)
            let detail = try #require(try full.json()["detail"] as? String)
            #expect(detail.contains("replica disk (\(scratch.dataDirectory.path))"), "\(detail)")
            #expect(detail.contains("10 MB free, under the 64 MB"), "\(detail)")
            // What not ready means: the upload is refused with the disk named, not a store outage.
            let upload = try await client.upload(nativeTrace(updates: 20, app: "Orchard"), name: "orchard.json")
            #expect(upload.status.code == 507, "\(upload.text)")
            #expect(upload.text.contains("disk"), "\(upload.text)")
            // Still alive: only readiness says no.
            #expect(try await client.get("/healthz").status == .ok)
        }
    }
}
