import Foundation

/// Settings of a generated corpus.
public struct DemoOptions {
    public var devices = 2000
    public var weeks = 6
    public var seed: UInt64 = 42
    /// Where the logs stop (exclusive, ms): the last day is the one holding the moment before it,
    /// and nothing is written at or after it. nil: the fixed corpus of `weeks` whole weeks from
    /// Monday 2026-10-05, the same on every machine and every day (what the tests use).
    public var end: Int64?
    /// Midnight UTC of the first day.
    var start: Int64 {
        guard let end else { return DemoOptions.fixedStart }
        return TimeFormat.floorDiv(end - 1, DemoGenerator.day) * DemoGenerator.day - Int64(weeks * 7 - 1) * DemoGenerator.day
    }
    /// Where the logs stop when `end` is nil.
    var stop: Int64 { end ?? DemoOptions.fixedStart + Int64(weeks * 7) * DemoGenerator.day }
    static let fixedStart = TimeFormat.isoWeekStart(year: 2026, week: 41)
    /// gzip level of the written files.
    public var gzipLevel: Int32 = 6
    public init() {}
}

/// What the generator wrote.
public struct DemoResult {
    public var files: [String] = []
    /// Lines written; all but the cut ones are records.
    public var lines = 0
    /// Lines cut short, as by a process killed mid-write: each one a reject.
    public var cutLines = 0
    public var records: Int { lines - cutLines }
    public var lastWeek = ""
    public var incident = ""
    /// A moment inside the incident, for `explain --at`.
    public var incidentExplainAt = ""
}

/// Writes a realistic provider log set: devices and users over several weeks, with launches
/// that re-register tokens, rotations the provider is slow to notice, uninstalls answered by
/// delayed 410s, development builds sent to production, a client version that uploads
/// malformed tokens, background pushes at several rates with receipts that thin out as the
/// rate grows, users who turn notifications off more often when they get more alerts, an
/// expired-JWT incident, 5xx retries, 429s and oversized payloads; and a second app's provider
/// that breaks the hygiene rules (DemoGenerator+Hygiene).
public final class DemoGenerator {
    let o: DemoOptions
    var devices: [DemoDevice] = []
    static let day: Int64 = 86_400_000
    static let hour: Int64 = 3_600_000
    static let topic = "com.example.shop"
    static let versions = ["5.0.0", "5.1.0", "5.1.3", "5.2.0", "5.2.1"]

    public init(_ options: DemoOptions) {
        o = options
        var r = DemoRandom(seed: o.seed, 0xDE71CE)
        for i in 0..<o.devices {
            devices.append(DemoDevice(index: i, users: max(1, o.devices * 9 / 10), start: o.start, weeks: o.weeks, rng: &r))
        }
    }

    /// Monday 00:00 UTC of the last whole ISO week of the logs: the week the demo's weekly page
    /// shows (a week still under way, as today's is, would compare a part with a whole).
    var lastWholeWeek: Int64 {
        let week = 7 * DemoGenerator.day
        // 1970-01-05 was a Monday.
        let monday = TimeFormat.floorDiv(o.stop - 4 * DemoGenerator.day, week) * week + 4 * DemoGenerator.day
        return monday - week
    }

    /// The incident window: the last whole week's Tuesday 14:10–14:50 UTC, every send refused
    /// with ExpiredProviderToken.
    var incidentStart: Int64 { lastWholeWeek + DemoGenerator.day + 14 * DemoGenerator.hour + 10 * 60_000 }
    var incidentEnd: Int64 { incidentStart + 40 * 60_000 }

    /// Writes one provider file and one app file per day under `dir`.
    public func write(to dir: String) throws -> DemoResult {
        var result = DemoResult()
        try FileManager.default.createDirectory(atPath: dir + "/provider", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir + "/app", withIntermediateDirectories: true)
        for d in 0..<(o.weeks * 7) {
            let dayStart = o.start + Int64(d) * DemoGenerator.day
            var provider: [(Int64, String)] = []
            var app: [(Int64, String)] = []
            provider.reserveCapacity(devices.count * 8)
            app.reserveCapacity(devices.count * 8)
            for i in devices.indices {
                var r = DemoRandom(seed: o.seed, UInt64(i) + 1, UInt64(d) + 1)
                simulate(&devices[i], dayStart: dayStart, rng: &r, provider: &provider, app: &app)
            }
            sloppySender(dayStart: dayStart, day: d, provider: &provider)
            if dayStart + DemoGenerator.day > o.stop {
                provider.removeAll { $0.0 >= o.stop }
                app.removeAll { $0.0 >= o.stop }
            }
            // Once a week a provider process dies mid-write: half a line, which pushlog rejects
            // (and `pushlog rejects` shows) rather than guess.
            if d % 7 == 3, !provider.isEmpty {
                let (t, whole) = provider[provider.count / 2]
                provider.append((t, String(whole.prefix(whole.count / 2))))
                result.cutLines += 1
            }
            let label = TimeFormat.day(ms: dayStart)
            for (name, var lines) in [("provider/sends-\(label).ndjson.gz", provider), ("app/events-\(label).ndjson.gz", app)] {
                lines.sort { $0.0 < $1.0 }
                let path = dir + "/" + name
                let w = try GzipWriter(path: path, level: o.gzipLevel)
                for (_, l) in lines { w.write(l); w.write("\n") }
                w.finish()
                result.files.append(path)
                result.lines += lines.count
            }
        }
        result.lastWeek = TimeFormat.isoWeek(ms: lastWholeWeek)
        result.incident = "\(TimeFormat.rfc3339(ms: incidentStart)) – \(TimeFormat.rfc3339(ms: incidentEnd))"
        result.incidentExplainAt = TimeFormat.rfc3339(ms: incidentStart + 20 * 60_000)
        return result
    }

    // MARK: one device, one day

    func simulate(
        _ dev: inout DemoDevice, dayStart: Int64, rng r: inout DemoRandom,
        provider: inout [(Int64, String)], app: inout [(Int64, String)]
    ) {
        let dayEnd = dayStart + DemoGenerator.day
        if dayStart < dev.firstSeen { return }
        // Launches: each re-registers the token and reports settings.
        if (dev.uninstalledAt == nil || dev.uninstalledAt! > dayStart) && r.chance(dev.launchChance) {
            let launches = 1 + (r.chance(0.2) ? 1 : 0)
            var times = (0..<launches).map { _ in dev.utc(r.range(6 * DemoGenerator.hour, 23 * DemoGenerator.hour), on: dayStart) }
            times.sort()
            for t in times {
                if let u = dev.uninstalledAt, t >= u { break }
                launch(&dev, at: t, rng: &r, app: &app)
            }
            // A few devices uninstall: APNs answers their token with 410 after a delay.
            if dev.uninstalledAt == nil && r.chance(0.003) {
                dev.uninstalledAt = r.range(dayStart, dayEnd)
                dev.goneFrom = dev.uninstalledAt! + r.range(DemoGenerator.hour * 6, DemoGenerator.day * 3)
            }
        }
        if dev.providerStops { return }
        // Alerts, more for "heavy" users.
        let alerts = r.poisson(dev.alertsPerDay)
        for _ in 0..<alerts {
            let t = dev.utc(r.range(8 * DemoGenerator.hour, 22 * DemoGenerator.hour), on: dayStart)
            send(&dev, at: t, background: false, rng: &r, provider: &provider, app: &app)
        }
        // Background pushes: `bgRate` in the device's active hour.
        if dev.bgRate > 0 && r.chance(0.5) {
            for k in 0..<dev.bgRate {
                let t = Int64(dev.bgHour) * DemoGenerator.hour + Int64(k) * (DemoGenerator.hour / Int64(dev.bgRate)) + r.range(0, 60_000)
                send(&dev, at: dev.utc(t, on: dayStart), background: true, rng: &r, provider: &provider, app: &app)
            }
        }
    }

    func launch(_ dev: inout DemoDevice, at t: Int64, rng r: inout DemoRandom, app: inout [(Int64, String)]) {
        // Token rotation (restore, reinstall): the provider notices late for some devices.
        if r.chance(0.03) {
            dev.oldToken = dev.token
            dev.token = r.hex(32)
            dev.providerLagUntil = r.chance(0.35) ? t + r.range(DemoGenerator.day, 5 * DemoGenerator.day) : t
            dev.oldGoneFrom = t + r.range(DemoGenerator.hour, DemoGenerator.day)
            dev.rotatedAt = t
        }
        if dev.version < 4 && r.chance(0.01) { dev.version += 1 }
        // Opt-out grows with the alert load.
        if dev.auth == "authorized" && dev.firstAuthorized != nil && r.chance(0.02 * dev.alertsPerDay * dev.alertsPerDay) {
            dev.auth = "denied"
        } else if dev.auth == "provisional" && r.chance(0.02) {
            dev.auth = r.chance(0.7) ? "authorized" : "denied"
        } else if dev.auth == "notDetermined" && r.chance(0.3) {
            dev.auth = r.chance(0.6) ? "authorized" : "denied"
        }
        if dev.auth == "authorized" && dev.firstAuthorized == nil { dev.firstAuthorized = t }
        let ts = TimeFormat.rfc3339(ms: t)
        let version = DemoGenerator.versions[dev.version]
        let token =
            dev.malformedClient && version == "5.1.3"
            ? "{length = 32, bytes = 0x\(dev.token.prefix(12))... \(dev.token.suffix(8))}" : dev.token
        app.append(
            (
                t,
                "{\"time\":\"\(ts)\",\"event\":\"register\",\"token\":\"\(token)\",\"device\":\"\(dev.device)\",\"user\":\"\(dev.user)\",\"env\":\"\(dev.sandboxBuild ? "sandbox" : "production")\",\"app_version\":\"\(version)\",\"os_version\":\"\(dev.os)\",\"auth\":\"\(dev.auth)\",\"topic\":\"\(DemoGenerator.topic)\"}"
            ))
        let alert = dev.auth == "denied" ? "disabled" : "enabled"
        app.append(
            (
                t + 150,
                "{\"time\":\"\(TimeFormat.rfc3339(ms: t + 150))\",\"event\":\"settings\",\"device\":\"\(dev.device)\",\"user\":\"\(dev.user)\",\"auth\":\"\(dev.auth)\",\"alert_setting\":\"\(alert)\",\"sound_setting\":\"\(alert)\",\"badge_setting\":\"enabled\",\"lock_screen\":\"\(alert)\"}"
            ))
    }

    func send(
        _ dev: inout DemoDevice, at t0: Int64, background: Bool, rng r: inout DemoRandom,
        provider: inout [(Int64, String)], app: inout [(Int64, String)]
    ) {
        var t = t0
        // Which token does the provider use? The old one while it lags behind a rotation.
        var token = dev.token
        var goneFrom = dev.goneFrom
        var goneTimestamp = dev.uninstalledAt
        if let lag = dev.providerLagUntil, t < lag, let old = dev.oldToken {
            token = old
            goneFrom = dev.oldGoneFrom
            goneTimestamp = dev.rotatedAt
        }
        let env = dev.sandboxBuild && !dev.providerKnowsSandbox ? "production" : (dev.sandboxBuild ? "sandbox" : "production")
        var attempt = 1
        while true {
            var status = 200
            var reason: String?
            var apnsTS: Int64?
            if t >= incidentStart && t < incidentEnd {
                status = 403; reason = "ExpiredProviderToken"
            } else if dev.malformedClient && DemoGenerator.versions[dev.version] == "5.1.3" {
                status = 400; reason = "BadDeviceToken"
            } else if dev.sandboxBuild && env == "production" {
                status = 400; reason = "BadDeviceToken"
            } else if let g = goneFrom, t >= g {
                status = 410; reason = "Unregistered"; apnsTS = goneTimestamp
            } else if background && dev.hot && r.chance(0.25) {
                status = 429; reason = "TooManyRequests"
            } else if r.chance(0.003) {
                status = r.chance(0.5) ? 503 : 500; reason = status == 503 ? "ServiceUnavailable" : "InternalServerError"
            } else if !background && r.chance(0.0008) {
                status = 413; reason = "PayloadTooLarge"
            }
            let id = r.uuid()
            var line =
                "{\"time\":\"\(TimeFormat.rfc3339(ms: t))\",\"event\":\"send\",\"token\":\"\(dev.malformedClient && DemoGenerator.versions[dev.version] == "5.1.3" ? "{length = 32, bytes = 0x\(dev.token.prefix(12))... \(dev.token.suffix(8))}" : token)\",\"apns_id\":\"\(id)\",\"env\":\"\(env)\",\"topic\":\"\(DemoGenerator.topic)\""
            if background {
                let typed = !dev.untypedBackground
                if typed { line += ",\"push_type\":\"background\"" }
                line += ",\"priority\":\(dev.badPriority ? 10 : 5)"
                line += ",\"payload\":{\"aps\":{\"content-available\":1},\"sync\":\"inbox\"}"
            } else {
                line += ",\"push_type\":\"alert\",\"priority\":10,\"collapse_id\":\"deal-\(r.int(50))\""
                line +=
                    ",\"payload\":{\"aps\":{\"alert\":{\"title\":\"Deal of the day\",\"body\":\"Only today: \(r.int(60) + 10)% off for you\"},\"sound\":\"default\",\"badge\":\(r.int(5) + 1),\"thread-id\":\"deals\"},\"deal_id\":\(r.int(100_000))}"
            }
            line += ",\"status\":\(status)"
            if let reason { line += ",\"reason\":\"\(reason)\"" }
            if let apnsTS { line += ",\"apns_timestamp\":\(apnsTS)" }
            line += ",\"latency_ms\":\(18 + r.int(80)),\"attempt\":\(attempt)}"
            provider.append((t, line))
            if status == 200 {
                receipt(&dev, id: id, at: t, background: background, rng: &r, app: &app)
                if !background { dev.alertsReceived += 1 }
            }
            if status == 410 && !dev.keepsSendingAfterGone && token == dev.token { dev.providerStops = true }
            // Retry server errors once; a few providers also retry what must never be retried.
            let retry = status >= 500 || (status == 410 && dev.retriesEverything)
            if retry && attempt == 1 {
                attempt = 2
                t += 1000 + r.range(0, 2000)
                continue
            }
            break
        }
    }

    func receipt(_ dev: inout DemoDevice, id: String, at t: Int64, background: Bool, rng r: inout DemoRandom, app: inout [(Int64, String)])
    {
        if let u = dev.uninstalledAt, t >= u { return }
        if background {
            let p: Double = [0, 0.95, 0.9, 0.8, 0.65, 0.5, 0.4, 0.35, 0.3][min(dev.bgRate, 8)]
            guard r.chance(p) else { return }
            let lag = r.range(500, 5_000 + Int64(dev.bgRate) * 60_000)
            let rt = t + lag
            app.append(
                (
                    rt,
                    "{\"time\":\"\(TimeFormat.rfc3339(ms: rt))\",\"event\":\"receipt\",\"apns_id\":\"\(id)\",\"device\":\"\(dev.device)\",\"receipt\":\"background\",\"result\":\"\(r.chance(0.8) ? "newData" : "noData")\"}"
                ))
        } else if dev.auth == "authorized" || dev.auth == "provisional" {
            guard r.chance(0.9) else { return }
            let rt = t + r.range(200, 3_000)
            let kind = r.chance(0.12) ? "opened" : "presented"
            app.append(
                (
                    rt,
                    "{\"time\":\"\(TimeFormat.rfc3339(ms: rt))\",\"event\":\"receipt\",\"apns_id\":\"\(id)\",\"device\":\"\(dev.device)\",\"receipt\":\"\(kind)\"}"
                ))
        }
    }
}

/// The simulated state of one device.
struct DemoDevice {
    let device: String
    let user: String
    var token: String
    var oldToken: String?
    var providerLagUntil: Int64?
    var oldGoneFrom: Int64?
    var rotatedAt: Int64?
    var uninstalledAt: Int64?
    var goneFrom: Int64?
    var providerStops = false
    var version: Int
    let os: String
    var auth: String
    var firstAuthorized: Int64?
    let sandboxBuild: Bool
    let providerKnowsSandbox: Bool
    let malformedClient: Bool
    let alertsPerDay: Double
    let launchChance: Double
    var alertsReceived = 0
    let bgRate: Int
    let bgHour: Int
    let untypedBackground: Bool
    let badPriority: Bool
    let hot: Bool
    let keepsSendingAfterGone: Bool
    let retriesEverything: Bool
    let firstSeen: Int64
    /// The device's clock ahead of UTC (ms): users in several time zones keep some traffic going
    /// at every hour of the day, as a real provider's does.
    let utcOffset: Int64

    /// The moment of the day starting at `dayStart` (UTC midnight) when the device's clock shows
    /// `local` (ms after its midnight); a local hour past the UTC day wraps into the same day, so
    /// a day's lines stay in that day's file.
    func utc(_ local: Int64, on dayStart: Int64) -> Int64 {
        let day = DemoGenerator.day
        return dayStart + ((local - utcOffset) % day + day) % day
    }

    init(index i: Int, users: Int, start: Int64, weeks: Int, rng r: inout DemoRandom) {
        device = String(format: "dev-%06d", i)
        // Users in Europe, the Americas and Asia.
        utcOffset = Int64([0, 0, 1, 1, -5, -5, -6, -8, 8, 9][i % 10]) * DemoGenerator.hour
        user = String(format: "user-%06d", i % users)
        token = r.hex(32)
        version = r.int(4)
        os = r.pick(["17.6", "18.0", "18.1", "18.2", "26.0"])
        let a = r.unit()
        auth = a < 0.68 ? "authorized" : a < 0.82 ? "denied" : a < 0.93 ? "provisional" : "notDetermined"
        sandboxBuild = r.chance(0.03)
        providerKnowsSandbox = r.chance(0.4)
        malformedClient = r.chance(0.06)
        alertsPerDay = [0.1, 0.25, 0.5, 0.8, 1.5][r.int(5)]
        bgRate = r.chance(0.2) ? [1, 2, 3, 5, 8][r.int(5)] : 0
        launchChance = [0.15, 0.3, 0.5, 0.8][r.int(4)]
        bgHour = 1 + r.int(12)
        untypedBackground = r.chance(0.2)
        badPriority = r.chance(0.1)
        hot = r.chance(0.01)
        keepsSendingAfterGone = r.chance(0.1)
        retriesEverything = r.chance(0.05)
        firstSeen = r.chance(0.8) ? 0 : start + Int64(r.int(weeks * 7)) * 86_400_000
    }
}
