-- title: Silent (background) push throttling
-- description: Background pushes against the budget iOS tolerates per device and hour, and how
-- description: many actually woke the app (background receipts) at each hourly rate.
-- records: responses
-- param: since time  start of the range
-- param: until time  end of the range, exclusive
-- param: budget int = 3  background pushes per token and clock hour before iOS throttles
-- param: topic text  only responses for this topic
-- param: env text  only responses sent to this env
-- param: by enum(topic,env,app_version)  by_bucket by a dimension (no by_bucket without --by)
-- column: bucket,rate key
-- column: background_sends count better=none
-- column: token_hours count better=none needs=token
-- column: accepted count better=up
-- column: over_budget_sends count needs=token
-- column: over_budget_share rate needs=token  Background pushes over budget
-- column: too_many_requests count unit=responses  Throttled (429) responses
-- column: receipt_rate rate better=up
-- column: median_lag_s number unit=seconds
-- materialize: token_hours

-- common:
-- Whole UTC hours of the range, [whole_hours.lo, whole_hours.hi), are read from background_hourly
-- (per hour, token, topic and env, derived at ingest); the partial hours at its ends (the two
-- rows of record_edges) from background_pushes. The parts have no hour in common. The whole
-- hours' bounds are scalar subqueries, not a join, so those hours are grouped in key order (no
-- sort); the ends are read through sends_background.
whole_hours(lo, hi) AS (
  SELECT whole_hours_start(:since, :until), whole_hours_end(:since, :until)
), record_edges(lo, hi) AS (
  SELECT :since, lo FROM whole_hours UNION ALL SELECT hi, :until FROM whole_hours
),
token_hours AS (
  -- Per clock hour and token (whole hours in their table's order: no sort): n background pushes, the
  -- accepted ones (the load), priority_not_5, with_alert, the accepted ones with a receipt and
  -- their receipt lags (ms) as a list. count(CASE ...) rather than sum(a = b): the same count,
  -- cheaper in SQLite.
  SELECT sum(b.pushes) AS n, sum(b.accepted) AS accepted, sum(b.priority_not_5) AS priority_not_5, sum(b.with_alert) AS with_alert,
         sum(b.received) AS received, group_concat(b.lags) AS lags
  FROM background_hourly b
  WHERE b.hour >= (SELECT lo FROM whole_hours) / 3600000 AND b.hour < (SELECT hi FROM whole_hours) / 3600000
    AND (:topic_id IS NULL OR b.topic_id = :topic_id) AND (:env_id IS NULL OR b.env_id = :env_id)
  GROUP BY b.hour, b.token_id
  UNION ALL
  SELECT count(*), count(CASE WHEN status = 200 THEN 1 END), count(CASE WHEN coalesce(priority, 10) <> 5 THEN 1 END),
         count(CASE WHEN with_alert = 1 THEN 1 END), count(CASE WHEN status = 200 THEN receipt_ms END),
         group_concat(CASE WHEN status = 200 THEN receipt_ms - time_ms END)
  FROM record_edges r CROSS JOIN background_pushes p
  WHERE p.time_ms >= r.lo AND p.time_ms < r.hi
    AND (:topic_id IS NULL OR p.topic_id = :topic_id) AND (:env_id IS NULL OR p.env_id = :env_id)
  GROUP BY p.hour, p.token_id
)

-- section: summary
-- A background push: push_type background, or no push_type with content-available and no
-- alert, sound or badge; counted when APNs answered it (the background_pushes view of sends). Load of a
-- token-hour: accepted background pushes to the token in one UTC clock hour.
-- over_budget_sends = sum of max(0, load - budget). priority_not_5: a missing priority is APNs'
-- default, 10.
WITH totals AS (
  SELECT coalesce(sum(n), 0) AS background_sends, coalesce(sum(accepted), 0) AS accepted,
         coalesce(sum(priority_not_5), 0) AS priority_not_5, coalesce(sum(with_alert), 0) AS with_alert,
         count(CASE WHEN accepted > 0 THEN 1 END) AS token_hours,
         coalesce(sum(max(0, accepted - :budget)), 0) AS over_budget_sends
  FROM token_hours
)
SELECT t.background_sends, t.accepted, t.token_hours, t.over_budget_sends,
       round(1.0 * t.over_budget_sends / nullif(t.accepted, 0), 6) AS over_budget_share,
       t.priority_not_5, t.with_alert,
       (SELECT count(*) FROM responses s
        WHERE s.time_ms >= :since AND s.time_ms < :until
          AND (:topic_id IS NULL OR s.topic_id = :topic_id) AND (:env_id IS NULL OR s.env_id = :env_id)
          AND s.status <> 200 AND s.reason_id = (SELECT id FROM reasons WHERE name = 'TooManyRequests')) AS too_many_requests
FROM totals t;

-- section: by_hourly_rate
-- received: accepted pushes with a background receipt for their apns_id; median_lag_s:
-- receipt time minus response time, in seconds. A push's rate is its token-hour's load.
WITH by_rate AS (
  SELECT CASE WHEN accepted <= 3 THEN accepted WHEN accepted <= 6 THEN 4 ELSE 7 END AS k, sum(accepted) AS accepted,
         sum(received) AS received, median_list(lags, 1000.0) AS med
  FROM token_hours WHERE accepted > 0 GROUP BY 1
)
SELECT CASE c.k WHEN 1 THEN '1' WHEN 2 THEN '2' WHEN 3 THEN '3' WHEN 4 THEN '4-6' ELSE '7+' END AS rate,
       c.accepted, c.received, round(1.0 * c.received / c.accepted, 6) AS receipt_rate, round(c.med, 3) AS median_lag_s
FROM by_rate c ORDER BY c.k;

-- section: by_bucket
-- Only with --by: the summary's figures per topic, env or app_version (of the token's latest
-- registration), adding up to the summary. A token-hour counts in the bucket of its first
-- accepted push; a push is over budget when more than `budget` accepted pushes to its token came
-- before it in that hour (so Σ max(0, load − budget) is split push by push).
WITH pushes AS (
  SELECT by_key(:by, time_ms, topic_id, env_id, NULL, NULL,
                CASE WHEN :by = 'app_version' THEN (SELECT f.reg_app_version_id FROM token_facts f WHERE f.token_id = b.token_id) END) AS k,
         status, priority, with_alert,
         CASE WHEN status = 200 THEN row_number() OVER (PARTITION BY hour, token_id, status = 200 ORDER BY time_ms, line_hash) END AS nth
  FROM background_pushes b
  WHERE time_ms >= :since AND time_ms < :until
    AND (:topic_id IS NULL OR topic_id = :topic_id) AND (:env_id IS NULL OR env_id = :env_id)
), buckets AS (
  SELECT k, count(*) AS background_sends, coalesce(sum(status = 200), 0) AS accepted,
         coalesce(sum(nth = 1), 0) AS token_hours, coalesce(sum(nth > :budget), 0) AS over_budget_sends,
         coalesce(sum(coalesce(priority, 10) <> 5), 0) AS priority_not_5, coalesce(sum(with_alert), 0) AS with_alert
  FROM pushes GROUP BY k
), too_many_by_bucket AS (
  SELECT by_key(:by, s.time_ms, s.topic_id, s.env_id, NULL, NULL,
                CASE WHEN :by = 'app_version' THEN (SELECT f.reg_app_version_id FROM token_facts f WHERE f.token_id = s.token_id) END) AS k,
         count(*) AS too_many_requests
  FROM responses s
  WHERE s.time_ms >= :since AND s.time_ms < :until
    AND (:topic_id IS NULL OR s.topic_id = :topic_id) AND (:env_id IS NULL OR s.env_id = :env_id)
    AND s.status <> 200 AND s.reason_id = (SELECT id FROM reasons WHERE name = 'TooManyRequests')
  GROUP BY k
), bucket_keys AS (SELECT k FROM buckets UNION SELECT k FROM too_many_by_bucket)
SELECT keys.k AS bucket, coalesce(b.background_sends, 0) AS background_sends, coalesce(b.accepted, 0) AS accepted,
       coalesce(b.token_hours, 0) AS token_hours, coalesce(b.over_budget_sends, 0) AS over_budget_sends,
       round(1.0 * b.over_budget_sends / nullif(b.accepted, 0), 6) AS over_budget_share,
       coalesce(b.priority_not_5, 0) AS priority_not_5, coalesce(b.with_alert, 0) AS with_alert,
       coalesce(tmr.too_many_requests, 0) AS too_many_requests
FROM bucket_keys keys LEFT JOIN buckets b ON b.k = keys.k LEFT JOIN too_many_by_bucket tmr ON tmr.k = keys.k
ORDER BY background_sends DESC, bucket;
