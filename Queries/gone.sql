-- title: Token gone (410) rates
-- description: How many responses were 410 (Unregistered/ExpiredToken), how many tokens APNs
-- description: retired, and whether the provider kept sending to tokens after their first 410.
-- records: responses
-- param: since time  start of the range (responses by time)
-- param: until time  end of the range, exclusive
-- param: by enum(minute,5m,hour,day,week,topic,env,app_version,push_type,reason) = day  a time bucket or a dimension
-- param: topic text  only responses for this topic
-- param: env text  only responses sent to production or sandbox
-- column: bucket key
-- column: responses count better=none unit=responses  APNs responses
-- column: gone_rate rate  Gone (410) rate
-- column: tokens_gone count unit=tokens needs=gone_token  Tokens retired by APNs
-- column: sends_after_gone count unit=sends needs=token,gone_token  Sends to tokens already gone
-- column: tokens_with_410 count needs=gone_token

-- common:
-- Whole UTC hours of the range, [whole_hours.lo, whole_hours.hi), are counted from
-- hourly_responses (derived at ingest); only the partial hours at its ends (the two rows of
-- record_edges) are read from the records. Buckets finer than an hour, and dimensions
-- hourly_responses lacks (app_version, push_type, reason), read everything from the records (no
-- whole hours). k: the by_bucket key (by_key: a bucket start or a value).
whole_hours(lo, hi) AS (
  SELECT whole_hours_start(x, :until), whole_hours_end(x, :until)
  FROM (SELECT CASE WHEN :by IN ('minute', '5m', 'app_version', 'push_type', 'reason') THEN :until ELSE :since END AS x)
), record_edges(lo, hi) AS (
  SELECT :since, lo FROM whole_hours UNION ALL SELECT hi, :until FROM whole_hours
), hourly_counts AS (
  SELECT by_key(:by, h.hour * 3600000, h.topic_id, h.env_id, NULL, NULL, NULL) AS k, h.responses, h.gone FROM hourly_responses h, whole_hours w
  WHERE h.hour >= w.lo / 3600000 AND h.hour < w.hi / 3600000 AND (:topic_id IS NULL OR h.topic_id = :topic_id) AND (:env_id IS NULL OR h.env_id = :env_id)
), edge_counts AS (
  SELECT by_key(:by, s.time_ms, s.topic_id, s.env_id, s.push_type_id, s.reason_id,
                CASE WHEN :by = 'app_version' THEN (SELECT f.reg_app_version_id FROM token_facts f WHERE f.token_id = s.token_id) END) AS k,
         1 AS responses, s.status = 410 AS gone
  FROM record_edges r CROSS JOIN responses s
  WHERE s.time_ms >= r.lo AND s.time_ms < r.hi
    AND (:topic_id IS NULL OR s.topic_id = :topic_id) AND (:env_id IS NULL OR s.env_id = :env_id)
)

-- section: summary
-- A response is a send or response record with a status (one attempt). responses, gone and
-- tokens_gone are the sums of by_bucket's columns of the same name; gone_rate is gone / responses.
-- tokens_gone: distinct tokens whose first 410 response (over all history) is in the range.
-- sends_after_gone: responses to a token later than its first 410, with no registration of the
-- token between that 410's APNs timestamp (or, without one, the 410's time) and the send.
WITH totals AS (
  SELECT coalesce(sum(responses), 0) AS responses, coalesce(sum(gone), 0) AS gone
  FROM (SELECT responses, gone FROM hourly_counts UNION ALL SELECT responses, gone FROM edge_counts)
), after_first_410 AS (
  -- Driven from the few tokens that have a 410 (token_facts), through the (token_id, t) index.
  SELECT f.token_id, f.first_410, coalesce(f.first_410_ts, f.first_410) AS gone_ts, s.time_ms AS t, s.status
  FROM token_facts f CROSS JOIN responses s ON s.token_id = f.token_id AND s.time_ms >= f.first_410
  WHERE f.first_410 IS NOT NULL
    AND s.time_ms >= :since AND s.time_ms < :until
    AND (:topic_id IS NULL OR s.topic_id = :topic_id) AND (:env_id IS NULL OR s.env_id = :env_id)
)
SELECT totals.responses, totals.gone,
       round(1.0 * totals.gone / nullif(totals.responses, 0), 6) AS gone_rate,
       (SELECT count(DISTINCT token_id) FROM after_first_410 WHERE status = 410 AND t = first_410) AS tokens_gone,
       (SELECT count(*) FROM after_first_410 g
         WHERE g.t > g.first_410
           AND NOT EXISTS (SELECT 1 FROM registers x WHERE x.token_id = g.token_id
                           AND x.time_ms > g.gone_ts AND x.time_ms <= g.t)) AS sends_after_gone
FROM totals;

-- section: by_bucket
-- Additive columns (they sum to the summary): responses, gone, tokens_gone (distinct tokens whose
-- first 410 over all history falls in the bucket, exactly as the summary counts them).
-- Not additive: gone_rate (a ratio) and tokens_with_410 (distinct tokens with any 410 response in
-- the bucket; a token gone in two buckets counts in both). Buckets inside the range with no
-- responses are shown with zeros. With --by topic|env|app_version|push_type|reason, bucket is
-- that value instead of a time (app_version: of the token's latest registration; a token's first
-- 410 counts in the bucket of that response), with the same sums.
WITH bucket_counts AS (
  SELECT k AS b, sum(responses) AS responses, sum(gone) AS gone
  FROM (SELECT k, responses, gone FROM hourly_counts UNION ALL SELECT k, responses, gone FROM edge_counts)
  GROUP BY b
), tokens_410_by_bucket AS (
  SELECT by_key(:by, s.time_ms, s.topic_id, s.env_id, s.push_type_id, s.reason_id,
                CASE WHEN :by = 'app_version' THEN f.reg_app_version_id END) AS b,
         count(DISTINCT s.token_id) AS tokens_with_410,
         count(DISTINCT CASE WHEN s.time_ms = f.first_410 THEN s.token_id END) AS tokens_gone
  FROM responses s LEFT JOIN token_facts f ON f.token_id = s.token_id
  WHERE s.status = 410 AND +s.time_ms >= :since AND +s.time_ms < :until  -- unary +: through sends_gone, not a time range
    AND (:topic_id IS NULL OR s.topic_id = :topic_id) AND (:env_id IS NULL OR s.env_id = :env_id)
  GROUP BY b
)
SELECT by_label(r.b, :by) AS bucket, r.responses, r.gone, round(1.0 * r.gone / r.responses, 6) AS gone_rate,
       coalesce(tg.tokens_gone, 0) AS tokens_gone, coalesce(tg.tokens_with_410, 0) AS tokens_with_410
FROM bucket_counts r LEFT JOIN tokens_410_by_bucket tg ON tg.b = r.b
ORDER BY r.b;
