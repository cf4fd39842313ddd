/// `retry_links`: every retry of a response that must never be retried, as the errors report's
/// retried_non_retryable and the hygiene rule non_retryable_retried define it (Queries/errors.sql).
/// Whether a response is such a retry depends only on its token's sends and registrations, never
/// on a report's range or filters, so it is found once here rather than by every report (it was
/// the largest part of errors and hygiene: 0.2–0.3 s at 2.5 M records).
enum RetryLinks {
    /// Finds every link again (after a bulk load, a crash, a join of split responses, a prune).
    static func rebuild(_ db: Database) throws {
        try db.exec("DELETE FROM retry_links; \(insert(errorsWhere: "1"))")
    }

    /// Finds again the links of the tokens that the send rows above `sendsAfter` name, or that a
    /// run's registrations touched (temp.touched_tokens): a new send can be a retry or a later
    /// error, a new registration ends a token's retries, and every link stays within one token.
    static func refresh(_ db: Database, sendsAfter rowid: Int64) throws {
        try db.exec(
            """
            CREATE TEMP TABLE IF NOT EXISTS retry_tokens(id INTEGER PRIMARY KEY); DELETE FROM retry_tokens;
            INSERT OR IGNORE INTO retry_tokens(id) SELECT token_id FROM sends WHERE rowid > \(rowid) AND token_id IS NOT NULL;
            INSERT OR IGNORE INTO retry_tokens(id) SELECT id FROM temp.touched_tokens;
            DELETE FROM retry_links WHERE error_id IN (
              SELECT s.id FROM sends s WHERE s.token_id IN (SELECT id FROM temp.retry_tokens) AND s.status <> 200);
            \(insert(errorsWhere: "s.token_id IN (SELECT id FROM temp.retry_tokens)"))
            """)
    }

    /// The links of the errors matching `errorsWhere` (a condition on their sends row `s`). The
    /// definition is the one Queries/errors.sql states; the shape is the one that reads sends_token
    /// an hour of a token's sends at a time (one env at a time: the index leads with token, env).
    static func insert(errorsWhere filter: String) -> String {
        """
        INSERT INTO retry_links(error_id, retry_id)
        WITH nr AS (
          -- Responses that must never be retried: token-gone, token-bad or request errors.
          SELECT s.id, s.time_ms AS t, s.token_id, s.topic_id, s.apns_id, s.collapse_id
          FROM sends s
          WHERE s.status <> 200 AND s.kind IN (0, 2) AND s.token_id IS NOT NULL AND (\(filter))
            AND s.category_id IN (SELECT id FROM categories WHERE never_retry = 1)
        ), nr_envs AS (
          SELECT DISTINCT s.token_id, s.env_id FROM sends s WHERE s.token_id IN (SELECT token_id FROM nr)
        )
        SELECT e.id, r.id
        FROM nr_envs v CROSS JOIN nr e ON e.token_id = v.token_id
        CROSS JOIN sends r ON r.token_id = e.token_id AND r.env_id IS v.env_id AND r.time_ms > e.t AND r.time_ms <= e.t + 3600000
        WHERE r.kind IN (0, 2) AND r.status IS NOT NULL AND r.topic_id IS e.topic_id
          AND (r.apns_id = e.apns_id OR r.attempt > 1 OR r.collapse_id = e.collapse_id)
          -- not after the token registered again
          AND NOT EXISTS (SELECT 1 FROM registers x WHERE x.token_id = e.token_id AND x.time_ms > e.t AND x.time_ms <= r.time_ms)
          -- and only for the latest such error before the retry
          AND NOT EXISTS (SELECT 1 FROM nr_envs v2 JOIN sends e2 ON e2.token_id = v2.token_id AND e2.env_id IS v2.env_id
                            AND e2.time_ms >= e.t AND e2.time_ms < r.time_ms
                          JOIN categories c2 ON c2.id = e2.category_id AND c2.never_retry = 1
                          WHERE v2.token_id = e.token_id AND e2.kind IN (0, 2) AND e2.status IS NOT NULL AND e2.status <> 200
                            AND (e2.time_ms > e.t OR e2.id > e.id) AND e2.topic_id IS e.topic_id
                            AND (r.apns_id = e2.apns_id OR r.attempt > 1 OR r.collapse_id = e2.collapse_id));
        """
    }
}
