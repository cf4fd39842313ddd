import Foundation

/// How many of a range's records carry what figures need (`RecordNeed`), as an engine measured
/// them (DataCoverage on SQLite, ClickHouseEngine.needs). What follows from it is the same for
/// every engine and every output: a figure whose needs no record of the range carries is emptied,
/// with a note naming what is missing (a 0 there would read as healthy); one that only some
/// records carry keeps its value, and a note says what share of the records it covers.
public struct NeedCoverage: Sendable {
    /// Per need: the records it is about and how many of them carry it.
    public struct Count: Sendable, Equatable {
        public var carrying: Int64
        public var of: Int64
        public init(carrying: Int64, of: Int64) { (self.carrying, self.of) = (carrying, of) }
    }

    public var counts: [RecordNeed: Count]

    public init(_ counts: [RecordNeed: Count]) { self.counts = counts }

    /// The share of the records a need is about that carry it; nil when the range holds none
    /// of them (a figure over no such records is what it is: no 410s, no tokens gone).
    func share(_ need: RecordNeed) -> Double? {
        guard let c = counts[need], c.of > 0 else { return nil }
        return Double(c.carrying) / Double(c.of)
    }

    /// Two adjacent ranges' coverage together (the two weeks of a KPI page): shares of records
    /// add up; whether registrations exist before the end is the later range's answer.
    static func + (a: NeedCoverage, b: NeedCoverage) -> NeedCoverage {
        var out = a
        for (need, y) in b.counts {
            guard let x = a.counts[need] else { out.counts[need] = y; continue }
            out.counts[need] =
                need.isPresence
                ? Count(carrying: max(x.carrying, y.carrying), of: max(x.of, y.of))
                : Count(carrying: x.carrying + y.carrying, of: x.of + y.of)
        }
        return out
    }

    /// What the range's records say about a figure needing `needs`.
    enum Verdict: Equatable {
        case covered
        /// Not observable: no record carries these.
        case missing([RecordNeed])
        /// Only this share of the need's records carry it (the smallest share of the needs).
        case partial(Double, RecordNeed)
    }

    func verdict(_ needs: [RecordNeed]) -> Verdict {
        let missing = needs.filter { share($0) == 0 }
        if !missing.isEmpty { return .missing(missing) }
        let partial = needs.compactMap { n in share(n).flatMap { $0 < 1 ? ($0, n) : nil } }.min { $0.0 < $1.0 }
        return partial.map { .partial($0.0, $0.1) } ?? .covered
    }

    /// Whether any column of `doc` declares needs (only then is the coverage worth measuring).
    static func matters(_ doc: ResultDocument) -> Bool {
        doc.sections.contains { t in t.columns.contains { !(t.info[$0]?.needs.isEmpty ?? true) } }
    }

    /// Empties the figures of `doc` the range's records cannot show, records them as not
    /// observable (for `--fail-if`) and adds the notes; `scope` names the range in the notes of a
    /// document that covers several ("this week").
    func apply(to doc: inout ResultDocument, scope: String? = nil) {
        let (notes, marks) = NeedCoverage.said(blank(&doc.sections), scope: scope)
        doc.notes += notes
        doc.unobservable.merge(marks) { first, _ in first }
    }

    /// Empties the columns of `tables` whose needs no record carries; returns the verdict on
    /// each column whose needs are not all carried, in order.
    func blank(_ tables: inout [ResultTable]) -> [(String, Verdict)] {
        var verdicts: [(String, Verdict)] = []
        for ti in tables.indices {
            for (c, name) in tables[ti].columns.enumerated() {
                guard let needs = tables[ti].info[name]?.needs, !needs.isEmpty else { continue }
                let v = verdict(needs)
                if case .missing = v {
                    for r in tables[ti].rows.indices { tables[ti].rows[r][c] = .null }
                }
                if v != .covered, !verdicts.contains(where: { $0.0 == name }) { verdicts.append((name, v)) }
            }
        }
        return verdicts
    }

    /// The notes on the verdicts (the columns of the same verdict in one note) and the figures
    /// not observable, with what they lack.
    static func said(_ verdicts: [(String, Verdict)], scope: String?) -> (notes: [String], unobservable: [String: String]) {
        var groups: [(Verdict, [String])] = []
        for (name, v) in verdicts {
            if let i = groups.firstIndex(where: { $0.0 == v }) { groups[i].1.append(name) } else { groups.append((v, [name])) }
        }
        let prefix = scope.map { $0 + ": " } ?? ""
        var notes: [String] = []
        var marks: [String: String] = [:]
        for (v, names) in groups {
            let list = names.joined(separator: ", ")
            switch v {
            case .covered: continue
            case .missing(let needs):
                let why = needs.map(\.missing).joined(separator: "; ")
                for n in names { marks[n] = why }
                notes.append("\(prefix)not observable: \(list) (\(why))")
            case .partial(let share, let need):
                notes.append(
                    "\(prefix)\(list) \(names.count == 1 ? "covers" : "cover") \(percent(share)) of the \(need.records)"
                        + " (those with \(need.carried))")
            }
        }
        return (notes, marks)
    }

    /// A share as a note says it, never rounded up to 100% or down to 0%.
    static func percent(_ share: Double) -> String {
        let p = min(99.9, max(0.1, (share * 1000).rounded(.down) / 10))
        return p.rounded() == p ? "\(Int(p))%" : String(format: "%.1f%%", p)
    }
}

extension KPIPage {
    /// A page's figures the weeks' records cannot show: a KPI's this_week or last_week (and its
    /// change) by that week's coverage, the page's other figures by the two weeks'. Every
    /// engine's page goes through this after `describe`.
    static func applyNeeds(_ doc: inout ResultDocument, this: NeedCoverage, last: NeedCoverage) {
        if let k = doc.sections.firstIndex(where: \.isKPIs), let m = doc.sections[k].column("metric") {
            let t = doc.sections[k]
            for (week, coverage, scope) in [("this_week", this, "this week"), ("last_week", last, "last week")] {
                guard let c = t.column(week) else { continue }
                var verdicts: [(String, NeedCoverage.Verdict)] = []
                for r in t.rows.indices {
                    guard case .text(let metric) = t.rows[r][m], let needs = t.info[metric]?.needs, !needs.isEmpty else { continue }
                    let v = coverage.verdict(needs)
                    if case .missing = v {
                        doc.sections[k].rows[r][c] = .null
                        if let change = t.column("change") { doc.sections[k].rows[r][change] = .null }
                    }
                    if v != .covered { verdicts.append((metric, v)) }
                }
                let (notes, marks) = NeedCoverage.said(verdicts, scope: scope)
                doc.notes += notes
                // A condition reads this week's value; last week's only explains it.
                if week == "this_week" { doc.unobservable.merge(marks) { first, _ in first } }
            }
        }
        var others = doc.sections.filter { !$0.isKPIs }
        let verdicts = (this + last).blank(&others)
        doc.sections = doc.sections.map { t in t.isKPIs ? t : others.first { $0.name == t.name } ?? t }
        doc.notes += NeedCoverage.said(verdicts, scope: "the two weeks").notes
    }
}
