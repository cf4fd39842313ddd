/// The prefix a log collector puts before an application's line, like the CloudWatch prefix
/// before JSON: syslog and journald, BSD style `Apr 10 22:51:48 host prog[pid]: ` (no year: taken
/// from the file's modification time) or RFC 3339 style `2026-04-10T22:51:48.120+00:00 host
/// prog[pid]: ` (rsyslog's precise format, `journalctl -o short-iso`); the Kubernetes (CRI) log
/// file's `2026-04-10T22:51:48.123456789Z stdout F `; and Docker's JSON-file lines
/// `{"log":"LINE\n","stream":"stdout","time":"…"}`, whose line is the unescaped `log`.
struct SyslogPrefix {
    /// The year of the file's modification time and its epoch ms: a BSD time later than a day
    /// after the file was last written belongs to the year before (a December line read in January).
    let year: Int
    let mtimeMs: Int64
    /// Holds a Docker JSON-file line's unescaped `log` (valid until the next split).
    let unescaped = RecordBuffer()

    init(mtimeMs: Int64) {
        self.mtimeMs = mtimeMs
        let days = Int(mtimeMs / 86_400_000)
        year = CivilDate.date(days: days).y
    }

    static let months: [String] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The prefix's time (nil when it does not parse) and the bytes after it; nil when the line has no such prefix.
    func split(_ b: ByteSlice) -> (Int64?, ByteSlice)? {
        let n = b.count
        if n > 10 && b[0] == 0x7B && b[1] == 0x22 && b[2] == 0x6C && b[3] == 0x6F && b[4] == 0x67 && b[5] == 0x22 { return dockerJSON(b) }
        var i = 0
        var time: Int64?
        if n > 16, let m = SyslogPrefix.month(b), b[3] == 0x20 {
            // "Apr 10 22:51:48" or "Apr  1 22:51:48"
            guard let d1 = digitOrSpace(b[4]), let d2 = digit(b[5]), b[6] == 0x20,
                let hh = twoDigits(b, 7), b[9] == 0x3A, let mm = twoDigits(b, 10), b[12] == 0x3A, let ss = twoDigits(b, 13)
            else { return nil }
            let day = d1 * 10 + d2
            guard day >= 1, day <= 31, hh < 24, mm < 60, ss <= 60 else { return nil }
            i = 15
            while i < n && b[i] != 0x20 { i += 1 }  // fractions some daemons add
            var t = TimeParser.epochMs(year: year, month: m, day: day, hour: hh, minute: mm, second: ss)
            if t > mtimeMs + 86_400_000 { t = TimeParser.epochMs(year: year - 1, month: m, day: day, hour: hh, minute: mm, second: ss) }
            time = t
        } else if n > 20, b[4] == 0x2D, b[10] == 0x54 {
            while i < n && b[i] != 0x20 { i += 1 }
            guard let t = TimeParser.parse(ByteSlice(rebasing: b[0..<i])) else { return nil }
            time = t
        } else {
            return nil
        }
        // " host tag: " — a host, then a tag ending in ':' (prog, prog[pid]), neither JSON.
        guard i < n && b[i] == 0x20 else { return nil }
        i += 1
        if let rest = SyslogPrefix.criStream(b, i) { return (time, rest) }
        let hostStart = i
        while i < n && b[i] != 0x20 { i += 1 }
        guard i > hostStart, i < n, b[hostStart] != 0x7B, b[hostStart] != 0x5B, b[hostStart] != 0x22 else { return nil }
        if i - hostStart == 1 && b[hostStart] == 0x2D { return nil }  // "- level:" is an application's own prefix
        i += 1
        let tagStart = i
        while i < n && b[i] != 0x20 {
            if b[i] == 0x7B || b[i] == 0x22 || b[i] == 0x3D { return nil }
            i += 1
        }
        guard i - tagStart >= 2, b[i - 1] == 0x3A else { return nil }
        if i < n { i += 1 }
        return (time, ByteSlice(rebasing: b[i...]))
    }

    /// After a CRI time: `stdout F ` or `stderr P ` (a full or partial line), and what follows.
    static func criStream(_ b: ByteSlice, _ i: Int) -> ByteSlice? {
        let n = b.count
        guard i + 8 < n, b[i] == 0x73, b[i + 1] == 0x74, b[i + 6] == 0x20, b[i + 8] == 0x20, b[i + 7] == 0x46 || b[i + 7] == 0x50
        else { return nil }
        let stream = String(decoding: ByteSlice(rebasing: b[i..<(i + 6)]), as: UTF8.self)
        guard stream == "stdout" || stream == "stderr" else { return nil }
        return ByteSlice(rebasing: b[(i + 9)...])
    }

    /// A Docker JSON-file line: its `time` and its `log` without the line ending.
    func dockerJSON(_ b: ByteSlice) -> (Int64?, ByteSlice)? {
        guard let v = JSONValue.parse(b), var log = v["log"]?.string else { return nil }
        let time = v["time"]?.string.flatMap { TimeParser.parse($0) }
        unescaped.reset()
        log.withUTF8 { unescaped.append($0) }
        var line = unescaped.slice
        while let last = line.last, last == 0x0A || last == 0x0D { line = ByteSlice(rebasing: line.dropLast()) }
        return (time, line)
    }

    static func month(_ b: ByteSlice) -> Int? {
        let s = String(decoding: ByteSlice(rebasing: b[0..<3]), as: UTF8.self)
        return months.firstIndex(of: s).map { $0 + 1 }
    }

    func digit(_ c: UInt8) -> Int? { c >= 0x30 && c <= 0x39 ? Int(c - 0x30) : nil }
    func digitOrSpace(_ c: UInt8) -> Int? { c == 0x20 ? 0 : digit(c) }
    func twoDigits(_ b: ByteSlice, _ i: Int) -> Int? {
        guard let a = digit(b[i]), let c = digit(b[i + 1]) else { return nil }
        return a * 10 + c
    }

    /// True when the line starts with a syslog prefix (detection).
    static func starts(_ line: String) -> Bool {
        var s = line
        return s.withUTF8 { SyslogPrefix(mtimeMs: 0).split($0) != nil }
    }
}
