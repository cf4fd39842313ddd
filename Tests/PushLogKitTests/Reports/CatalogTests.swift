import XCTest

@testable import PushLogKit

/// The catalog's headers declare what a report means: typed parameters read at load, refused
/// with the file and line when they are wrong.
final class CatalogTests: XCTestCase {
    func parse(_ text: String) throws -> ReportDefinition {
        try ReportDefinition.parse(name: "mine", text: text, origin: "/q/mine.sql")
    }

    func testTypedParametersAreRead() throws {
        let def = try parse(
            """
            -- title: Mine
            -- param: since time  start of the range
            -- param: by enum(hour,day) = day  the bucket
            -- param: budget int = 5  per hour
            -- section: summary
            SELECT :since, :by, :budget;
            """)
        XCTAssertEqual(def.params.map(\.name), ["since", "by", "budget"])
        XCTAssertEqual(def.parameter("since")?.type, .time)
        XCTAssertEqual(def.byValues, ["hour", "day"])
        XCTAssertEqual(def.paramDefaults, ["by": "day", "budget": "5"])
        XCTAssertEqual(def.parameter("by")?.help, "the bucket")
        XCTAssertNil(def.undeclaredUse)
    }

    /// Every built-in report's parameters are typed, and `by` lists the values its SQL handles.
    func testBuiltInParametersAreTyped() throws {
        let catalog = try QueryCatalog()
        XCTAssertEqual(catalog.report("gone")?.byValues?.first, "minute")
        XCTAssertEqual(catalog.report("silent")?.byValues, ["topic", "env", "app_version"])
        XCTAssertEqual(catalog.report("opt-out")?.parameter("unit")?.type, .oneOf(["device", "user"]))
        XCTAssertEqual(catalog.report("weekly")?.parameter("week")?.type, .week)
        for r in catalog.reports { XCTAssertNil(r.undeclaredUse, r.name) }
    }

    func testBadHeadersAreRefusedWithFileAndLine() {
        let cases: [(String, String)] = [
            ("-- title: X\n-- param: since tiem  start\n-- section: s\nSELECT 1;", "/q/mine.sql:2: unknown type 'tiem'"),
            ("-- title: X\n\n-- param: by enum(hour,day) = week  b\n-- section: s\nSELECT 1;", "/q/mine.sql:3: default 'week'"),
            ("-- param: budget text  n\n-- section: s\nSELECT 1;", "/q/mine.sql:1: parameter budget is a int"),
            ("-- param: by text  bucket\n-- section: s\nSELECT 1;", "/q/mine.sql:1: parameter by must list its values"),
            ("-- column: x rat\n-- section: s\nSELECT 1;", "/q/mine.sql:1: unknown column role 'rat'"),
            ("-- column: x rate better=sideways\n-- section: s\nSELECT 1;", "/q/mine.sql:1: better=sideways"),
            ("-- trend: t = a.b.c weeks\n-- section: s\nSELECT 1;", "/q/mine.sql:1: cannot read"),
            (
                "-- param: since time  a\n-- param: since time  b\n-- section: s\nSELECT 1;",
                "/q/mine.sql:2: parameter since is declared twice"
            ),
        ]
        for (text, message) in cases {
            XCTAssertThrowsError(try parse(text), text) { e in XCTAssertTrue("\(e)".contains(message), "\(e)") }
        }
    }

    /// A parameter the SQL binds but the header does not declare is found at load, with its line;
    /// names in strings, quoted names and comments are not parameters.
    func testUndeclaredParameterIsFoundAtLoad() throws {
        let def = try parse(
            """
            -- param: since time  start
            -- section: summary
            -- :not_a_param in a comment
            SELECT ':nor_this', "x:y", /* :nor */ count(*) AS n
            FROM responses WHERE time_ms >= :since
              AND time_ms < :sinec;
            """)
        let e = try XCTUnwrap(def.undeclaredUse)
        XCTAssertEqual(e.name, "sinec")
        XCTAssertEqual(e.line, 6)
        XCTAssertTrue("\(e)".contains("(/q/mine.sql:6) uses :sinec"), "\(e)")
    }

    /// Every built-in column that is not a plain count says what it is in its header: a column
    /// holding text or fractions without a `-- column:` line would be formatted, compared and
    /// filled as a count.
    func testBuiltInColumnsThatAreNotCountsAreDeclared() throws {
        let db = try Store.openForReading(path: IngestedFixtures.reports)
        let runner = try ReportRunner(db: db)
        for def in try QueryCatalog().reports {
            let p = ReportParams(by: def.byValues?.first, week: def.parameter("week") != nil ? "2026-W45" : nil)
            for t in try runner.run(name: def.name, params: p).sections where !t.isKPIs {
                for (c, name) in t.columns.enumerated() where t.info[name] == nil {
                    let plain = t.rows.allSatisfy { if case .int = $0[c] { return true } else { return $0[c] == .null } }
                    XCTAssertTrue(plain, "\(def.name).\(t.name).\(name) holds more than counts: declare it with -- column:")
                }
            }
        }
    }

    /// The older untyped form still loads: the type is the one the option carries, `by` and
    /// `unit` take the values every report took, and one space may part the name from the help.
    func testUntypedParameterTakesItsOptionsType() throws {
        let def = try parse(
            """
            -- param: since start of the range
            -- param: budget=4  n
            -- param: by=day  bucket: hour, day or week
            -- param: unit=device  device or user
            -- section: s
            SELECT :since, :budget, :by, :unit;
            """)
        XCTAssertEqual(def.parameter("since")?.type, .time)
        XCTAssertEqual(def.parameter("since")?.help, "start of the range")
        XCTAssertEqual(def.parameter("budget")?.type, .int)
        XCTAssertEqual(def.paramDefaults["budget"], "4")
        XCTAssertEqual(def.parameter("by")?.type.allowed, ReportParameter.legacyChoices["by"])
        XCTAssertEqual(def.paramDefaults["by"], "day")
        XCTAssertEqual(def.parameter("unit")?.type.allowed, ["device", "user"])
    }

    /// A KPI page whose line names a report or section the catalog lacks stops the load.
    func testKPIPageSourcesAreCheckedAtLoad() throws {
        let tmp = TempDir()
        let page = "-- param: week week  w\n-- kpi: x = gone.summary.gone_rate\n-- section: s\nSELECT 1 AS one;\n"
        _ = tmp.write("p1.sql", page.replacingOccurrences(of: "gone.summary", with: "gnoe.summary"))
        XCTAssertThrowsError(try QueryCatalog(userDirectory: tmp.path)) { e in
            XCTAssertTrue("\(e)".contains("p1.sql: -- kpi: x reads report 'gnoe', which the catalog does not have"), "\(e)")
        }
        let other = TempDir()
        _ = other.write("p2.sql", page.replacingOccurrences(of: "gone.summary", with: "gone.sumary"))
        XCTAssertThrowsError(try QueryCatalog(userDirectory: other.path)) { e in
            XCTAssertTrue("\(e)".contains("reads gone.sumary, but gone has no section sumary"), "\(e)")
        }
        let fine = TempDir()
        _ = fine.write("p3.sql", page)
        XCTAssertTrue(try QueryCatalog(userDirectory: fine.path).report("p3")?.isKPIPage == true)
    }

    /// A user file with an undeclared parameter stops the catalog loading, exit 2, naming file and line.
    func testUndeclaredParameterInAUserFileExitsTwo() throws {
        let tmp = TempDir()
        _ = tmp.write("mine.sql", "-- title: Mine\n-- param: since time  start\n-- section: summary\nSELECT :sinec AS n;\n")
        let r = try Run.pushlog(["--db", IngestedFixtures.reports, "reports", "--queries", tmp.path])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("mine.sql:4) uses :sinec"), r.stderr)
        // So does any header it cannot read.
        _ = tmp.write("mine.sql", "-- title: Mine\n-- param: since tiem  start\n-- section: summary\nSELECT :since AS n;\n")
        let bad = try Run.pushlog(["--db", IngestedFixtures.reports, "report", "mine", "--queries", tmp.path])
        XCTAssertEqual(bad.status, 2, bad.stderr)
        XCTAssertTrue(bad.stderr.contains("mine.sql:2: unknown type 'tiem' of parameter since"), bad.stderr)
    }
}

/// A report is one file: a new one dropped into `--queries DIR` (typed parameters, declared
/// columns, a KPI page made of it) shows in help, the listing, completion, `--compare` and the
/// page with no other change; a new column's meaning comes from the same header.
final class CatalogFileTests: XCTestCase {
    static let mine = """
        -- title: Accepted responses
        -- description: How much APNs accepted.
        -- records: responses
        -- param: since time  start of the range
        -- param: until time  end of the range, exclusive
        -- param: by enum(day,week) = day  the bucket of by_bucket
        -- column: bucket key
        -- column: responses count better=none unit=responses  Responses
        -- column: ok_fraction rate better=up  Accepted, of all
        -- section: summary
        SELECT count(*) AS responses,
               round(1.0 * count(CASE WHEN status = 200 THEN 1 END) / nullif(count(*), 0), 6) AS ok_fraction
        FROM responses WHERE time_ms >= :since AND time_ms < :until;
        -- section: by_bucket
        SELECT bucket(time_ms, :by) AS bucket, count(*) AS responses,
               round(1.0 * count(CASE WHEN status = 200 THEN 1 END) / nullif(count(*), 0), 6) AS ok_fraction
        FROM responses WHERE time_ms >= :since AND time_ms < :until GROUP BY 1 ORDER BY 1;
        """

    static let page = """
        -- title: My page
        -- param: week week  the ISO week
        -- kpi: ok_fraction = mine.summary.ok_fraction
        -- kpi: responses = mine.summary.responses
        -- heading: kpis  My figures
        -- section: counted
        SELECT count(*) AS records FROM responses WHERE time_ms >= :since AND time_ms < :until;
        """

    func folder(_ files: [String: String]) -> TempDir {
        let tmp = TempDir()
        for (name, text) in files { _ = tmp.write(name, text) }
        return tmp
    }

    func pushlog(_ args: [String], _ dir: TempDir) throws -> Run {
        try Run.pushlog(["--db", IngestedFixtures.reports] + args + ["--queries", dir.path])
    }

    func testANewReportIsOneFile() throws {
        let dir = folder(["mine.sql": Self.mine, "page.sql": Self.page])
        let help = try pushlog(["report", "mine", "--help"], dir)
        XCTAssertTrue(help.stdout.contains("--by VALUE         the bucket of by_bucket (default day)"), help.stdout)
        XCTAssertTrue(help.stdout.contains("one of: day, week"), help.stdout)
        XCTAssertTrue(help.stdout.contains("--since TIME       start of the range"), help.stdout)
        // Options may come before the name, as anywhere else.
        for argv in [
            ["report", "--queries", dir.path, "mine", "--help"], ["report", "--queries=\(dir.path)", "--by", "week", "mine", "--help"],
        ] {
            let r = try Run.pushlog(["--db", IngestedFixtures.reports] + argv)
            XCTAssertTrue(r.stdout.contains("PARAMETERS OF mine"), "\(argv): \(r.stdout)")
        }

        let list = try pushlog(["reports", "--format", "csv"], dir)
        XCTAssertTrue(list.stdout.contains("mine,Accepted responses,since until by,summary by_bucket,"), list.stdout)
        XCTAssertTrue(list.stdout.contains("page,My page,week,kpis counted,"), list.stdout)

        let completion = try Run.pushlog(["completion", "bash"], env: ["PUSHLOG_QUERIES": dir.path])
        XCTAssertTrue(completion.stdout.contains("mine) COMPREPLY=($(compgen -W \"day week\""), completion.stdout)

        // The declared enum is what --by takes.
        let hour = try pushlog(["report", "mine", "--by", "hour"], dir)
        XCTAssertEqual(hour.status, 2)
        XCTAssertTrue(hour.stderr.contains("use one of: day, week"), hour.stderr)

        // --compare matches rows on the declared key; the declared rate reads in percentage
        // points, green when it rose (better=up).
        let range = ["--since", "2026-11-03", "--until", "2026-11-04", "--compare", "previous"]
        let json = try pushlog(["report", "mine", "--format", "json"] + range, dir)
        XCTAssertEqual(json.status, 0, json.stderr)
        XCTAssertTrue(json.stdout.contains("\"ok_fraction_prev\""), json.stdout)
        let table = try pushlog(["report", "mine", "--format", "table", "--color", "always", "--no-pager"] + range, dir)
        XCTAssertTrue(table.stdout.contains("\u{1B}[32m          +46.7 pp\u{1B}[0m"), table.stdout)
        XCTAssertTrue(table.stdout.contains("   -14       100.0%"), "responses are volume: not coloured")
        // The previous day's bucket is matched on the declared key, at its place in this range.
        XCTAssertTrue(table.stdout.contains("2026-11-03          1              15               -14"), table.stdout)

        // The KPI page: labels, percentages and direction from mine.sql's header.
        let html = try pushlog(["report", "page", "--week", "2026-W45", "--format", "html"], dir)
        XCTAssertEqual(html.status, 0, html.stderr)
        XCTAssertTrue(html.stdout.contains("<h2>My figures</h2>"), html.stdout)
        XCTAssertTrue(html.stdout.contains("<td title=\"ok_fraction\">Accepted, of all</td>"), html.stdout)
        XCTAssertTrue(html.stdout.contains("<td title=\"responses\">Responses</td>"), html.stdout)
        XCTAssertTrue(html.stdout.contains("%</td>"), html.stdout)
        let fail = try pushlog(["report", "page", "--week", "2026-W45", "--fail-if", "ok_fraction < 1.01"], dir)
        XCTAssertEqual(fail.status, 3, fail.stderr)
    }

    /// A column added to a report takes its meaning from the header it is declared in: the same
    /// figure as a count and as a rate reads differently, and nothing else changed.
    func testANewColumnIsOneFile() throws {
        let added = Self.mine
            .replacingOccurrences(
                of: "-- section: summary\nSELECT count(*) AS responses,",
                with: "-- section: summary\nSELECT count(*) AS responses, 0.25 AS late,")
        let asRate = folder([
            "mine.sql": added.replacingOccurrences(of: "-- section: summary", with: "-- column: late rate\n-- section: summary")
        ])
        let asCount = folder(["mine.sql": added])
        let args = ["report", "mine", "--section", "summary", "--format", "table", "--no-pager"]
        let rate = try pushlog(args, asRate), count = try pushlog(args, asCount)
        XCTAssertTrue(rate.stdout.contains("25.0%"), rate.stdout)
        XCTAssertFalse(count.stdout.contains("25.0%"), count.stdout)
        XCTAssertTrue(count.stdout.contains("0.25"), count.stdout)
    }
}

/// Report files written before headers declared columns keep their meaning: an undeclared
/// column reads by the naming conventions reports have always used, and a KPI page that declares
/// no layout gets the weekly page's.
final class UndeclaredColumnsTests: XCTestCase {
    func testCompareMatchesRowsByAConventionalKeyColumn() {
        let cur = ResultTable(
            name: "by_bucket", columns: ["topic", "status", "responses", "median_latency", "gone_rate"],
            rows: [[.text("a"), .int(200), .int(10), .int(5), .double(0.1)], [.text("b"), .int(410), .int(3), .int(7), .double(0.2)]])
        // The previous period lists b first and lacks a.
        let prev = ResultTable(
            name: "by_bucket", columns: cur.columns, rows: [[.text("b"), .int(410), .int(1), .int(6), .double(0.5)]])
        let merged = ReportComparison.merge(cur, prev, shift: 0, by: "topic")
        XCTAssertFalse(merged.columns.contains("status_prev"), "a key is not compared: \(merged.columns)")
        let row = { (key: String) in merged.rows.first { $0[0] == .text(key) }! }
        let p = merged.column("responses_prev")!, m = merged.column("median_latency_prev")!
        XCTAssertEqual(row("b")[p], .int(1))
        XCTAssertEqual(row("b")[m], .int(6))
        XCTAssertEqual(row("a")[p], .int(0), "a row of one period compares against 0")
        // A rate or a median of nothing is empty, not 0%: the previous period had no rows for a.
        XCTAssertEqual(row("a")[m], .null)
        XCTAssertEqual(row("a")[merged.column("gone_rate_prev")!], .null)
        XCTAssertEqual(row("a")[merged.column("gone_rate_change")!], .double(0.1))
    }

    func testConventionalMeanings() {
        XCTAssertEqual(ColumnInfo.inferred("bucket").role, .key)
        XCTAssertEqual(ColumnInfo.inferred("reason").role, .key)
        XCTAssertEqual(ColumnInfo.inferred("median_latency_ms").role, .number)
        XCTAssertEqual(ColumnInfo.inferred("first_seen").role, .time)
        XCTAssertEqual(ColumnInfo.inferred("gone_rate").role, .rate)
        XCTAssertEqual(ColumnInfo.inferred("gone").role, .count)
        XCTAssertEqual(ColumnInfo.inferred("accepted_share").better, .up)
        XCTAssertEqual(ColumnInfo.inferred("responses").better, ColumnInfo.Better.none)
        XCTAssertEqual(ColumnInfo.inferred("gone_rate").better, .down)
    }

    /// A copy of the built-in weekly page with its layout lines taken out (as pages were
    /// written before they could declare one) lays out as weekly: incidents marked, its trend.
    func testAKPIPageWithoutLayoutTakesWeeklys() throws {
        let weekly = try XCTUnwrap(QueryCatalog().report("weekly"))
        let text = BuiltInQueries.files["weekly"]!
            .split(separator: "\n", omittingEmptySubsequences: false)
            .filter { l in !["-- trend:", "-- fill:", "-- heading:", "-- marks:", "-- column:"].contains { l.hasPrefix($0) } }
            .joined(separator: "\n")
        let tmp = TempDir()
        _ = tmp.write("myweekly.sql", text.replacingOccurrences(of: "weekly.basics", with: "myweekly.basics"))
        let page = try XCTUnwrap(QueryCatalog(userDirectory: tmp.path).report("myweekly"))
        XCTAssertEqual(page.marks?.section, weekly.marks?.section)
        XCTAssertEqual(page.trends.map(\.name), weekly.trends.map(\.name))
        XCTAssertEqual(page.headings, weekly.headings)
        XCTAssertEqual(page.columns["auth_errors"], weekly.columns["auth_errors"])
    }
}
