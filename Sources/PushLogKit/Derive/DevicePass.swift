/// One merged pass over registrations and settings in (device, time) order, read through the
/// device indexes, that rebuilds `token_runs` and `device_facts` for every device. Doing it in
/// Swift avoids the sorts that window functions and GROUP BY on expressions cost in SQL.
struct DevicePass {
    let db: Database
    /// Only the devices listed in temp.touched_devices (an incremental refresh).
    let only: Bool

    struct Registration { let t: Int64; let token: Int64; let auth: Int64?; let user: Int64? }
    struct Setting { let t: Int64; let auth: Int64; let user: Int64? }

    /// Seeded label ids (Schema.seededLabels) of the authorization states.
    static let authorized = Schema.labelID("authorized"), denied = Schema.labelID("denied")
    static let provisional = Schema.labelID("provisional"), ephemeral = Schema.labelID("ephemeral")

    func run() throws {
        let which = only ? "device_id IN (SELECT id FROM temp.touched_devices)" : "device_id IS NOT NULL"
        if only {
            try db.exec(
                """
                DELETE FROM token_runs WHERE device_id IN (SELECT id FROM temp.touched_devices);
                DELETE FROM device_facts WHERE unit IN (SELECT name FROM devices WHERE id IN (SELECT id FROM temp.touched_devices));
                """)
        } else {
            try db.exec("DELETE FROM token_runs; DELETE FROM device_facts")
        }
        let regs = try db.prepare(
            "SELECT device_id, time_ms, token_id, auth_id, user_id FROM registers INDEXED BY registers_device WHERE \(which) ORDER BY device_id, time_ms"
        )
        let sets = try db.prepare(
            "SELECT device_id, time_ms, auth_id, user_id FROM settings INDEXED BY settings_device WHERE \(which) ORDER BY device_id, time_ms"
        )
        let insRun = try db.prepare("INSERT INTO token_runs(device_id, token_id, start, last, superseded_at) VALUES (?1, ?2, ?3, ?4, ?5)")
        let insFact = try db.prepare(
            """
            INSERT INTO device_facts(unit, user_id, opted_in, opted_out, first_decided, first_decided_auth, last_seen, last_token_id, last_reg)
            VALUES ((SELECT name FROM devices WHERE id = ?1), ?2, ?3, ?4, ?5, (SELECT name FROM labels WHERE id = ?6), ?7, ?8, ?9)
            """)
        let userName = try db.prepare("SELECT name FROM users WHERE id = ?1")
        var names: [Int64: String] = [:]
        func name(_ user: Int64) throws -> String {
            if let n = names[user] { return n }
            userName.bind(1, user)
            let n = try userName.step() ? userName.string(0) ?? "" : ""
            userName.reset()
            if names.count > 100_000 { names.removeAll() }
            names[user] = n
            return n
        }
        var regRow = try regs.step()
        var setRow = try sets.step()
        var rs: [Registration] = []
        var ss: [Setting] = []
        while regRow || setRow {
            // The next device: the smaller key of the two cursors.
            let rd = regRow ? regs.int(0) : nil
            let sd = setRow ? sets.int(0) : nil
            let device: Int64
            if let rd, let sd { device = min(rd, sd) } else { device = rd ?? sd! }
            rs.removeAll(keepingCapacity: true)
            ss.removeAll(keepingCapacity: true)
            while regRow, regs.int(0) == device {
                rs.append(
                    Registration(
                        t: regs.int(1), token: regs.int(2), auth: regs.isNull(3) ? nil : regs.int(3),
                        user: regs.isNull(4) ? nil : regs.int(4)))
                regRow = try regs.step()
            }
            while setRow, sets.int(0) == device {
                ss.append(Setting(t: sets.int(1), auth: sets.int(2), user: sets.isNull(3) ? nil : sets.int(3)))
                setRow = try sets.step()
            }
            try emitRuns(device, rs, insRun)
            // The user of a device seen with several: the greatest name (as before ids).
            let users = rs.compactMap(\.user) + ss.compactMap(\.user)
            var user: Int64?
            var best = ""
            for u in Set(users) {
                let n = try name(u)
                if user == nil || n > best { user = u; best = n }
            }
            try emitFacts(device, user, rs, ss, insFact)
        }
    }

    /// Runs of consecutive registrations with one token; superseded_at is the next run's start.
    func emitRuns(_ device: Int64, _ rs: [Registration], _ ins: Statement) throws {
        var i = 0
        while i < rs.count {
            var j = i
            while j + 1 < rs.count && rs[j + 1].token == rs[i].token { j += 1 }
            ins.bind(1, device); ins.bind(2, rs[i].token); ins.bind(3, rs[i].t); ins.bind(4, rs[j].t)
            ins.bindInt(5, j + 1 < rs.count ? rs[j + 1].t : nil)
            try ins.run()
            i = j + 1
        }
    }

    /// Opt-in facts from the auth observations of both kinds, in time order. Every device gets a
    /// row (it also maps users to devices for `trace`); without observations its facts are NULL.
    func emitFacts(_ device: Int64, _ user: Int64?, _ rs: [Registration], _ ss: [Setting], _ ins: Statement) throws {
        var obs: [(Int64, Int64)] = rs.compactMap { r in r.auth.map { (r.t, $0) } }
        obs.append(contentsOf: ss.map { ($0.t, $0.auth) })
        obs.sort { $0.0 < $1.0 }
        var optIn: Int64?, off: Int64?, fdT: Int64?, fdAuth: Int64?
        for (t, a) in obs {
            let decided = a == Self.authorized || a == Self.denied || a == Self.provisional || a == Self.ephemeral
            if fdT == nil && decided { fdT = t; fdAuth = a }
            if optIn == nil { if a == Self.authorized { optIn = t } } else if off == nil && a == Self.denied && t > optIn! { off = t }
        }
        let last = rs.last
        ins.bind(1, device); ins.bindInt(2, user)
        ins.bindInt(3, optIn); ins.bindInt(4, off); ins.bindInt(5, fdT); ins.bindInt(6, fdAuth)
        ins.bindInt(7, obs.last?.0); ins.bindInt(8, last?.token); ins.bindInt(9, last?.t)
        try ins.run()
    }
}
