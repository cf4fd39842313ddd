/// The SQL behind `sources` and `rejects`.
public enum Listings {
    public static let sources = """
        SELECT path, format, substr(head_hash, 1, 16) || ':' || size AS fingerprint,
               n_send + n_request + n_response + n_register + n_settings + n_receipt + n_unregister AS records,
               n_send AS send, n_request AS request, n_response AS response, n_register AS register,
               n_settings AS settings, n_receipt AS receipt, n_unregister AS unregister,
               duplicates, rejects, skipped, ignored, lines,
               CASE WHEN complete THEN 'yes' ELSE 'no' END AS complete, error,
               rfc3339(last_ingest) AS ingested_at
        FROM sources ORDER BY id
        """

    /// Rejects of one source (or all, ?1 NULL), for the "showing N of M" line.
    public static let rejectCount = "SELECT count(*) FROM rejects r JOIN sources s ON s.id = r.source_id WHERE ?1 IS NULL OR s.path = ?1"

    /// Rejects of one source (or all, ?1 NULL) counted but not stored (`RejectTextBound`).
    public static let rejectsCountedOnly = """
        SELECT coalesce(sum(max(0, s.rejects - (SELECT count(*) FROM rejects r WHERE r.source_id = s.id))), 0)
        FROM sources s WHERE ?1 IS NULL OR s.path = ?1
        """

    /// Sources whose path is `?1` or ends in `/?1` (a file named as `sources` lists it, or by its name).
    public static let sourceMatch = "SELECT path FROM sources WHERE path = ?1 OR path LIKE '%/' || ?1 ORDER BY path = ?1 DESC LIMIT 3"

    public static let rejects = """
        SELECT s.path AS file, r.line, r.reason, r.text
        FROM rejects r JOIN sources s ON s.id = r.source_id
        WHERE ?1 IS NULL OR s.path = ?1
        ORDER BY r.source_id, r.line
        LIMIT ?2
        """
}
