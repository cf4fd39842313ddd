/// `resp_hourly`: responses and 410s per UTC clock hour, topic and env, so a report counts whole
/// hours without reading `sends`. A full rebuild reads the responses once in time order (the
/// identity index, so no sort) and writes each hour as it ends; an incremental one adds the
/// rows a run inserted.
enum HourlyResponses {
    static let hour: Int64 = 3_600_000

    static func rebuild(_ db: Database) throws {
        try db.exec("DELETE FROM resp_hourly")
        let scan = try db.prepare("SELECT t, topic, env, status = 410 FROM sends WHERE kind IN (0, 2) AND status IS NOT NULL ORDER BY t")
        let ins = try db.prepare("INSERT INTO resp_hourly(hour, topic, env, responses, gone) VALUES (?1, ?2, ?3, ?4, ?5)")
        struct Cell { let topic: [UInt8], env: [UInt8]; var responses: Int64, gone: Int64 }
        var current: Int64?
        var cells: [Cell] = []  // the current hour's topic/env pairs: a handful
        func flush() throws {
            guard let current else { return }
            for c in cells {
                ins.bind(1, current)
                ins.bind(2, String(decoding: c.topic, as: UTF8.self))
                ins.bind(3, String(decoding: c.env, as: UTF8.self))
                ins.bind(4, c.responses)
                ins.bind(5, c.gone)
                try ins.run()
            }
            cells.removeAll(keepingCapacity: true)
        }
        while try scan.step() {
            let h = TimeFormat.floorDiv(scan.int(0), hour)
            if h != current {
                try flush()
                current = h
            }
            let topic = scan.bytes(1), env = scan.bytes(2), gone = scan.int(3)
            if let i = cells.firstIndex(where: { $0.topic.elementsEqual(topic) && $0.env.elementsEqual(env) }) {
                cells[i].responses += 1
                cells[i].gone += gone
            } else {
                cells.append(Cell(topic: Array(topic), env: Array(env), responses: 1, gone: gone))
            }
        }
        try flush()
    }

    /// Adds the responses among the send rows above `rowid`.
    static func add(_ db: Database, after rowid: Int64) throws {
        try db.exec("""
            INSERT INTO resp_hourly(hour, topic, env, responses, gone)
              SELECT bucket_start(t, 'hour') / \(hour), coalesce(topic, ''), coalesce(env, ''), count(*), sum(status = 410)
              FROM sends WHERE rowid > \(rowid) AND kind IN (0, 2) AND status IS NOT NULL GROUP BY 1, 2, 3
            ON CONFLICT(hour, topic, env) DO UPDATE SET responses = responses + excluded.responses, gone = gone + excluded.gone;
            """)
    }
}
