/// The SQL behind `sources` and `rejects`.
public enum Listings {
    public static let sources = """
        SELECT path, format, head_hash || ':' || size AS fingerprint,
               n_send + n_request + n_response + n_register + n_settings + n_receipt + n_unregister AS records,
               n_send AS send, n_request AS request, n_response AS response, n_register AS register,
               n_settings AS settings, n_receipt AS receipt, n_unregister AS unregister,
               duplicates, rejects, skipped, ignored, lines,
               CASE WHEN complete THEN 'yes' ELSE 'no' END AS complete, error,
               rfc3339(last_ingest) AS ingested_at
        FROM sources ORDER BY id
        """

    public static let rejects = """
        SELECT s.path AS file, r.line, r.reason, r.text
        FROM rejects r JOIN sources s ON s.id = r.src
        WHERE ?1 IS NULL OR s.path = ?1
        ORDER BY r.src, r.line
        LIMIT ?2
        """
}
