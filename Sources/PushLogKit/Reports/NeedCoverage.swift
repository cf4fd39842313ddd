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

    /// Two ranges' coverage together (the two weeks of a KPI page).
    static func + (a: NeedCoverage, b: NeedCoverage) -> NeedCoverage {
        NeedCoverage(a.counts.merging(b.counts) { Count(carrying: $0.carrying + $1.carrying, of: $0.of + $1.of) })
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
        var verdicts: [(String, Verdict)] = []
        for si in doc.sections.indices {
            let t = doc.sections[si]
            for (c, name) in t.columns.enumerated() {
                guard let needs = t.info[name]?.needs, !needs.isEmpty else { continue }
                let v = verdict(needs)
                if case .missing = v {
                    for r in t.rows.indices { doc.sections[si].rows[r][c] = .null }
                }
                if v != .covered, !verdicts.contains(where: { $0.0 == name }) { verdicts.append((name, v)) }
            }
        }
        record(verdicts, in: &doc, scope: scope)
    }

    /// Notes the verdicts on `doc`, the columns of the same verdict in one note, and marks the
    /// figures not observable.
    func record(_ verdicts: [(String, Verdict)], in doc: inout ResultDocument, scope: String?) {
        var groups: [(Verdict, [String])] = []
        for (name, v) in verdicts {
            if let i = groups.firstIndex(where: { $0.0 == v }) { groups[i].1.append(name) } else { groups.append((v, [name])) }
        }
        let prefix = scope.map { $0 + ": " } ?? ""
        for (v, names) in groups {
            let list = names.joined(separator: ", ")
            switch v {
            case .covered: continue
            case .missing(let needs):
                let why = needs.map(\.missing).joined(separator: "; ")
                for n in names { doc.unobservable[n] = why }
                doc.notes.append("\(prefix)not observable: \(list) (\(why))")
            case .partial(let share, let need):
                doc.notes.append(
                    "\(prefix)\(list) \(names.count == 1 ? "covers" : "cover") \(NeedCoverage.percent(share)) of the \(need.records)"
                        + " (those with \(need.carried))")
            }
        }
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
            for (week, coverage) in [("this_week", this), ("last_week", last)] {
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
                // A condition reads this week's value; last week's only explains it.
                var scoped = doc
                coverage.record(verdicts, in: &scoped, scope: week == "this_week" ? "this week" : "last week")
                doc.notes = scoped.notes
                if week == "this_week" { doc.unobservable = scoped.unobservable }
            }
        }
        var rest = doc
        rest.sections = doc.sections.filter { !$0.isKPIs }
        rest.notes = []
        let marks = rest.unobservable
        (this + last).apply(to: &rest, scope: "the two weeks")
        for s in rest.sections { if let i = doc.sections.firstIndex(where: { $0.name == s.name }) { doc.sections[i] = s } }
        doc.notes += rest.notes
        doc.unobservable = marks
    }
}
