/// The retries reports count, found at ingest. `retry_links`: every retry of a response that must
/// never be retried, as the errors report's retried_non_retryable and the hygiene rule
/// non_retryable_retried define it (Queries/errors.sql). `backoff_retries`: the first retry of each
/// 429 or 5xx response and whether it came too soon (hygiene's retry_without_backoff).
/// Both depend only on the token's sends and registrations, never on a report's range or filters,
/// so they are found once here rather than by every report (they were the largest part of errors
/// and hygiene: 0.2–0.3 s and 0.1 s at 2.5 M records).
enum Retries {
    /// Finds every retry again (after a bulk load, a crash, a join of split responses, a prune).
    static func rebuild(_ db: Database) throws {
        try db.exec("DELETE FROM retry_links; \(insert(errorsWhere: "1"))")
        try db.exec("DELETE FROM backoff_retries; \(insertBackoff(errorsWhere: "1"))")
    }

    /// Finds again the retries of the errors near what a run added. A link never leaves its token,
    /// and a send at time n can only change the links of errors of its token from n − 1 h (it
    /// retries them, or is a later error that takes their retries) to n + 1 h (it is the earlier
    /// attempt a backoff is measured from). So for each token of the send rows above `sendsAfter`
    /// the errors between its new sends' first time − 1 h and last time + 1 h are re-derived;
    /// for a token whose registrations the run touched (temp.touched_tokens; a registration ends
    /// retries), all of its errors.
    static func refresh(_ db: Database, sendsAfter rowid: Int64) throws {
        let near = "EXISTS (SELECT 1 FROM temp.retry_tokens k WHERE k.id = s.token_id AND s.time_ms BETWEEN k.lo AND k.hi)"
        try db.exec(
            """
            CREATE TEMP TABLE IF NOT EXISTS retry_tokens(id INTEGER PRIMARY KEY, lo INTEGER NOT NULL, hi INTEGER NOT NULL);
            DELETE FROM retry_tokens;
            INSERT INTO retry_tokens(id, lo, hi)
              SELECT token_id, min(time_ms) - 3600000, max(time_ms) + 3600000 FROM sends NOT INDEXED  -- the new rows by rowid, not
              WHERE rowid > \(rowid) AND token_id IS NOT NULL GROUP BY token_id;                      -- all of sends_token in its order
            INSERT INTO retry_tokens(id, lo, hi) SELECT id, -9000000000000000000, 9000000000000000000 FROM temp.touched_tokens WHERE true
              ON CONFLICT(id) DO UPDATE SET lo = excluded.lo, hi = excluded.hi;
            DELETE FROM retry_links WHERE error_id IN (
              SELECT s.id FROM sends s WHERE s.token_id IN (SELECT id FROM temp.retry_tokens) AND s.status <> 200 AND \(near));
            DELETE FROM backoff_retries WHERE error_id IN (
              SELECT s.id FROM sends s WHERE s.token_id IN (SELECT id FROM temp.retry_tokens) AND s.status <> 200 AND \(near));
            \(insert(errorsWhere: "s.token_id IN (SELECT id FROM temp.retry_tokens) AND \(near)"))
            \(insertBackoff(errorsWhere: "s.token_id IN (SELECT id FROM temp.retry_tokens) AND \(near)"))
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
          FROM responses s
          WHERE s.status <> 200 AND s.token_id IS NOT NULL AND (\(filter))
            AND s.category_id IN (SELECT id FROM categories WHERE never_retry = 1)
        ), nr_envs AS (
          SELECT DISTINCT s.token_id, s.env_id FROM sends s WHERE s.token_id IN (SELECT token_id FROM nr)
        )
        SELECT e.id, r.id
        FROM nr_envs v CROSS JOIN nr e ON e.token_id = v.token_id
        CROSS JOIN responses r ON r.token_id = e.token_id AND r.env_id IS v.env_id AND r.time_ms > e.t AND r.time_ms <= e.t + 3600000
        WHERE r.topic_id IS e.topic_id
          AND (r.apns_id = e.apns_id OR r.attempt > 1 OR r.collapse_id = e.collapse_id)
          -- not after the token registered again
          AND NOT EXISTS (SELECT 1 FROM registers x WHERE x.token_id = e.token_id AND x.time_ms > e.t AND x.time_ms <= r.time_ms)
          -- and only for the latest such error before the retry
          AND NOT EXISTS (SELECT 1 FROM nr_envs v2 JOIN responses e2 ON e2.token_id = v2.token_id AND e2.env_id IS v2.env_id
                            AND e2.time_ms >= e.t AND e2.time_ms < r.time_ms
                          JOIN categories c2 ON c2.id = e2.category_id AND c2.never_retry = 1
                          WHERE v2.token_id = e.token_id AND e2.status <> 200
                            AND (e2.time_ms > e.t OR e2.id > e.id) AND e2.topic_id IS e.topic_id
                            AND (r.apns_id = e2.apns_id OR r.attempt > 1 OR r.collapse_id = e2.collapse_id));
        """
    }

    /// The first retries of the 429 and 5xx responses matching `errorsWhere` (Queries/hygiene.sql,
    /// retry_without_backoff): a later response to the same token and topic within one hour with
    /// the same apns-id or attempt > 1, the least row id at the least time. too_soon: it came under
    /// 1 s after the error, or no later than the interval before the error when the error was itself
    /// a retry of a 429/5xx (pt). Each lookup reads sends_token per env (sends.env_id is an envs.id
    /// or NULL), an hour of the token's sends at a time.
    static func insertBackoff(errorsWhere filter: String) -> String {
        func firstRetry(_ envs: String) -> String {
            """
            SELECT min(r.time_ms) FROM responses r WHERE r.token_id = e.token_id AND \(envs) AND r.time_ms > e.t AND r.time_ms <= e.t + 3600000
              AND r.topic_id IS e.topic_id AND (r.apns_id = e.apns_id OR r.attempt > 1)
            """
        }
        func previousAttempt(_ envs: String) -> String {
            """
            SELECT max(p.time_ms) FROM responses p WHERE p.token_id = e.token_id AND \(envs) AND p.time_ms < e.t AND p.time_ms >= e.t - 3600000
              AND p.category_id IN (SELECT id FROM categories WHERE name IN ('rate', 'server'))
              AND p.topic_id IS e.topic_id AND (p.apns_id = e.apns_id OR e.attempt > 1)
            """
        }
        func retryID(_ envs: String) -> String {
            """
            SELECT min(r.id) FROM responses r WHERE r.token_id = e.token_id AND \(envs) AND r.time_ms = e.rt
              AND r.topic_id IS e.topic_id AND (r.apns_id = e.apns_id OR r.attempt > 1)
            """
        }
        let known = "r.env_id IN (SELECT id FROM envs)", none = "r.env_id IS NULL"
        let knownP = "p.env_id IN (SELECT id FROM envs)", noneP = "p.env_id IS NULL"
        return """
            INSERT INTO backoff_retries(error_id, retry_id, too_soon)
            WITH bo_errs AS (
              SELECT s.id, s.time_ms AS t, s.token_id, s.topic_id, s.apns_id, s.attempt
              FROM responses s
              WHERE s.status <> 200 AND s.token_id IS NOT NULL AND (\(filter))
                AND s.category_id IN (SELECT id FROM categories WHERE name IN ('rate', 'server'))
            ), timed AS MATERIALIZED (
              SELECT e.id, e.t, e.token_id, e.topic_id, e.apns_id,
                     (SELECT min(x) FROM (SELECT (\(firstRetry(known))) AS x UNION ALL SELECT (\(firstRetry(none))))) AS rt,
                     (SELECT max(x) FROM (SELECT (\(previousAttempt(knownP))) AS x UNION ALL SELECT (\(previousAttempt(noneP))))) AS pt
              FROM bo_errs e
            ), firsts AS (
              SELECT e.id, e.t, e.pt,
                     (SELECT min(x) FROM (SELECT (\(retryID(known))) AS x UNION ALL SELECT (\(retryID(none))))) AS rid
              FROM timed e WHERE e.rt IS NOT NULL
            )
            SELECT b.id, r.id, coalesce(r.time_ms - b.t < 1000 OR r.time_ms - b.t <= b.t - b.pt, 0)
            FROM firsts b JOIN sends r ON r.id = b.rid;
            """
    }
}
