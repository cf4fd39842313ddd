/// One merged pass over registrations and settings in (device, time) order, read through the
/// device indexes, that rebuilds `token_runs` and `device_facts` for every device. Doing it in
/// Swift avoids the sorts that window functions and GROUP BY on expressions cost in SQL.
struct DevicePass {
    let db: Database
    /// Only the devices listed in temp.touched_devices (an incremental refresh).
    let only: Bool

    struct Registration { let t: Int64; let token: Int64; let auth: String?; let user: String? }
    struct Setting { let t: Int64; let auth: String; let user: String? }

    func run() throws {
        let which = only ? "device IN (SELECT d FROM temp.touched_devices)" : "device IS NOT NULL"
        if only {
            try db.exec("""
                DELETE FROM token_runs WHERE device IN (SELECT d FROM temp.touched_devices);
                DELETE FROM device_facts WHERE dkey IN (SELECT d FROM temp.touched_devices);
                """)
        } else {
            try db.exec("DELETE FROM token_runs; DELETE FROM device_facts")
        }
        let regs = try db.prepare("SELECT device, t, token_id, auth, user FROM registers INDEXED BY registers_device WHERE \(which) ORDER BY device, t")
        let sets = try db.prepare("SELECT device, t, auth, user FROM settings INDEXED BY settings_device WHERE \(which) ORDER BY device, t")
        let insRun = try db.prepare("INSERT INTO token_runs(device, token_id, start, last, superseded_at) VALUES (?1, ?2, ?3, ?4, ?5)")
        let insFact = try db.prepare("""
            INSERT INTO device_facts(dkey, user, opt_in, off, fd_t, fd_auth, last_obs, last_token, last_reg)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
            """)
        var regRow = try regs.step()
        var setRow = try sets.step()
        var rs: [Registration] = []
        var ss: [Setting] = []
        while regRow || setRow {
            // The next device: the smaller key of the two cursors.
            let rd = regRow ? regs.string(0) : nil
            let sd = setRow ? sets.string(0) : nil
            let device: String
            if let rd, let sd { device = rd < sd ? rd : sd } else { device = rd ?? sd! }
            rs.removeAll(keepingCapacity: true)
            ss.removeAll(keepingCapacity: true)
            while regRow, regs.string(0) == device {
                rs.append(Registration(t: regs.int(1), token: regs.int(2), auth: regs.string(3), user: regs.string(4)))
                regRow = try regs.step()
            }
            while setRow, sets.string(0) == device {
                ss.append(Setting(t: sets.int(1), auth: sets.string(2) ?? "", user: sets.string(3)))
                setRow = try sets.step()
            }
            try emitRuns(device, rs, insRun)
            try emitFacts(device, rs, ss, insFact)
        }
    }

    /// Runs of consecutive registrations with one token; superseded_at is the next run's start.
    func emitRuns(_ device: String, _ rs: [Registration], _ ins: Statement) throws {
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
    func emitFacts(_ device: String, _ rs: [Registration], _ ss: [Setting], _ ins: Statement) throws {
        var obs: [(Int64, String)] = rs.compactMap { r in r.auth.map { (r.t, $0) } }
        obs.append(contentsOf: ss.map { ($0.t, $0.auth) })
        obs.sort { $0.0 < $1.0 }
        var optIn: Int64?, off: Int64?, fdT: Int64?, fdAuth: String?
        for (t, a) in obs {
            if fdT == nil && (a == "authorized" || a == "denied" || a == "provisional" || a == "ephemeral") { fdT = t; fdAuth = a }
            if optIn == nil { if a == "authorized" { optIn = t } } else if off == nil && a == "denied" && t > optIn! { off = t }
        }
        let users = rs.compactMap(\.user) + ss.compactMap(\.user)
        let last = rs.last
        ins.bind(1, device); ins.bind(2, users.max())
        ins.bindInt(3, optIn); ins.bindInt(4, off); ins.bindInt(5, fdT); ins.bind(6, fdAuth)
        ins.bindInt(7, obs.last?.0); ins.bindInt(8, last?.token); ins.bindInt(9, last?.t)
        try ins.run()
    }
}
