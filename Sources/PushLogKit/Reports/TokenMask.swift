/// Masks device tokens in every output, unless --reveal-tokens: the first 8 and last 4 characters stay.
///
/// The rule is decided by the value, never by the column name, so an alias (`token AS tok`), a
/// concatenation or a token inside JSON or a rejected line is masked too:
/// - any run of 32 or more hex digits is a token by its shape (APNs tokens are 64 hex digits;
///   apns-ids are UUIDs, whose longest hex run is 12);
/// - tokens of the database that do not have that shape (malformed `{length = 32, bytes = …}`
///   uploads, short test tokens, gorush's `****` masks) are masked wherever their exact text
///   occurs in a cell.
public struct TokenMask {
    /// Tokens stored in the database that the hex-run rule would not catch, longest first.
    let irregular: [String]
    /// The same tokens by their first four bytes: a cell is searched only for the tokens whose
    /// start occurs in it (one pass over the cell, not one search per token).
    let byPrefix: [UInt32: [String]]
    let exact: Set<String>

    /// Reads the irregular tokens from the database (none without one).
    public init(db: Database?) {
        var found: [String] = []
        // The writer flags every token that is not hex (malformed) or came masked; the partial
        // index tokens_irregular has this WHERE, so only those rows are read.
        if let db,
            let s = try? db.prepare(
                """
                SELECT token FROM tokens
                WHERE (malformed = 1 OR masked = 1 OR length(token) < 32) AND length(token) >= 4
                ORDER BY length(token) DESC LIMIT 20000
                """)
        {
            while (try? s.step()) == true {
                if case .text(let t) = s.value(0), !TokenMask.hasHexRun(t) { found.append(t) }
            }
        }
        self.init(irregular: found)
    }

    public init(irregular: [String]) {
        self.irregular = irregular.sorted { $0.utf8.count > $1.utf8.count }
        var index: [UInt32: [String]] = [:]
        for t in self.irregular where t.utf8.count >= 4 { index[TokenMask.prefix(Array(t.utf8), 0), default: []].append(t) }
        byPrefix = index
        exact = Set(irregular)
    }

    @inline(__always) static func prefix(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24
    }

    /// The masked form of one whole token.
    static func mask(_ t: String) -> String {
        guard t.count > 12 else { return String(repeating: "*", count: max(t.count, 4)) }
        return String(t.prefix(8)) + "…" + String(t.suffix(4))
    }

    /// Masks every token in a piece of text.
    public func maskText(_ s: String) -> String {
        if exact.contains(s) { return TokenMask.mask(s) }
        var out = TokenMask.maskHexRuns(s)
        guard !byPrefix.isEmpty else { return out }
        let bytes = Array(out.utf8)
        guard bytes.count >= 4 else { return out }
        var candidates: [String] = []
        for i in 0...(bytes.count - 4) {
            if let ts = byPrefix[TokenMask.prefix(bytes, i)] { candidates += ts }
        }
        for t in Set(candidates).sorted(by: { $0.utf8.count > $1.utf8.count }) where out.contains(t) {
            out = out.replacingOccurrences(of: t, with: TokenMask.mask(t))
        }
        return out
    }

    /// A copy of the document with every token in every text cell, title and note masked.
    public func apply(_ doc: ResultDocument) -> ResultDocument {
        var d = doc
        d.title = maskText(d.title)
        d.notes = d.notes.map(maskText)
        d.params = d.params.map { k, v in
            if case .text(let s) = v { return (k, .text(maskText(s))) }
            return (k, v)
        }
        d.explained = d.explained.map {
            IncidentExplanation(title: maskText($0.title), since: $0.since, until: $0.until, doc: apply($0.doc))
        }
        for si in d.sections.indices {
            for ri in d.sections[si].rows.indices {
                for c in d.sections[si].rows[ri].indices {
                    if case .text(let s) = d.sections[si].rows[ri][c] { d.sections[si].rows[ri][c] = .text(maskText(s)) }
                }
            }
        }
        return d
    }

    /// Masks every run of 32 or more hex digits.
    static func maskHexRuns(_ s: String) -> String {
        guard hasHexRun(s) else { return s }
        var out = ""
        var run = ""
        func flush() {
            out += run.count >= 32 ? mask(run) : run
            run = ""
        }
        for c in s {
            if c.isHexDigit && c.isASCII { run.append(c) } else { flush(); out.append(c) }
        }
        flush()
        return out
    }

    static func hasHexRun(_ s: String) -> Bool {
        var n = 0
        for b in s.utf8 {
            let hex = (b >= 48 && b <= 57) || (b >= 97 && b <= 102) || (b >= 65 && b <= 70)
            n = hex ? n + 1 : 0
            if n >= 32 { return true }
        }
        return false
    }
}
