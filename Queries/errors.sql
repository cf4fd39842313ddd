-- title: APNs errors
-- description: Every non-accepted response by time bucket, status and reason, with the APNs
-- description: category, and retries of responses that must never be retried.
-- records: responses
-- param: since time  start of the range
-- param: until time  end of the range, exclusive
-- param: by enum(minute,5m,hour,day,topic,env,app_version,push_type,reason) = hour  a time bucket or a dimension
-- param: topic text  only responses for this topic
-- param: env text  only responses sent to this env
-- column: bucket,status,reason,category key
-- column: responses count better=none unit=responses
-- column: tokens,retried_non_retryable count needs=token
-- column: first_seen,last_seen time
-- column: bucket_responses count per=bucket unit=responses
-- column: share rate over=bucket_responses
-- materialize: errors_in_range

-- common:
-- Failures and transport failures in the range, two scans so each uses its partial index; read
-- once for both sections. rname: the reason's name; transport: from the second scan.
errors_in_range AS (
  SELECT s.id, s.time_ms AS t, s.token_id, s.topic_id, s.env_id, s.push_type_id, s.status,
         (SELECT name FROM reasons WHERE id = s.reason_id) AS rname,
         -- the error text only where no reason names the failure: sends_errors holds every other
         -- column of this scan, so only those rows are looked up
         CASE WHEN s.reason_id IS NULL THEN (SELECT x.error FROM sends x WHERE x.id = s.id) END AS error, s.category_id, 0 AS transport
  FROM responses s
  WHERE s.status <> 200 AND s.time_ms >= :since AND s.time_ms < :until
    AND (:topic_id IS NULL OR s.topic_id = :topic_id) AND (:env_id IS NULL OR s.env_id = :env_id)
  UNION ALL
  SELECT s.id, s.time_ms, s.token_id, s.topic_id, s.env_id, s.push_type_id, s.status,
         (SELECT name FROM reasons WHERE id = s.reason_id), s.error, s.category_id, 1
  FROM transport_failures s
  WHERE s.time_ms >= :since AND s.time_ms < :until
    AND (:topic_id IS NULL OR s.topic_id = :topic_id) AND (:env_id IS NULL OR s.env_id = :env_id)
)

-- Every response of the range (accepted too) per by_bucket key: the buckets' denominators. Whole
-- UTC hours, [whole_hours.lo, whole_hours.hi), come from hourly_responses, the partial hours at the
-- ends (the two rows of record_edges) from the records; buckets finer than an hour and dimensions
-- hourly_responses lacks read every response from the records (no whole hours).
, whole_hours(lo, hi) AS (
  SELECT whole_hours_start(x, :until), whole_hours_end(x, :until)
  FROM (SELECT CASE WHEN :by IN ('minute', '5m', 'app_version', 'push_type', 'reason') THEN :until ELSE :since END AS x)
), record_edges(lo, hi) AS (
  SELECT :since, lo FROM whole_hours UNION ALL SELECT hi, :until FROM whole_hours
), bucket_totals AS (
  SELECT k, sum(n) AS bucket_responses FROM (
    SELECT by_key(:by, h.hour * 3600000, h.topic_id, h.env_id, NULL, NULL, NULL) AS k, h.responses AS n FROM hourly_responses h, whole_hours w
    WHERE h.hour >= w.lo / 3600000 AND h.hour < w.hi / 3600000 AND (:topic_id IS NULL OR h.topic_id = :topic_id) AND (:env_id IS NULL OR h.env_id = :env_id)
    UNION ALL
    SELECT by_key(:by, s.time_ms, s.topic_id, s.env_id, s.push_type_id, s.reason_id,
                  CASE WHEN :by = 'app_version' THEN (SELECT f.reg_app_version_id FROM token_facts f WHERE f.token_id = s.token_id) END), 1
    FROM record_edges r CROSS JOIN responses s
    WHERE s.time_ms >= r.lo AND s.time_ms < r.hi AND (:topic_id IS NULL OR s.topic_id = :topic_id) AND (:env_id IS NULL OR s.env_id = :env_id)
  ) GROUP BY k
)

-- section: summary
-- retried_non_retryable: retries of a response that must never be retried (category token-gone,
-- token-bad or request): later responses to the same token and topic (a missing topic matches a
-- missing topic) within one hour of the error (at most 3,600,000 ms later), with the same
-- apns-id, an attempt above 1 or the same collapse-id, and no registration of the token after
-- the error and at or before the retry (a re-registered token may be sent to again). A retry
-- that follows several such errors counts once, on the row of the latest of them; a retry that
-- is itself such an error is a row of its own too. The hygiene report's non_retryable_retried
-- is the sum of this column.
-- Transport failures (category transport: no APNs response at all, e.g. TLS, DNS, timeouts) are
-- rows too: no status, their error text as the reason; they are never retried_non_retryable.
-- The retries are found at ingest (table retry_links): whether a response is such a retry depends
-- only on its token's sends and registrations, never on this report's range or filters.
WITH retries_per_error AS (
  SELECT l.error_id, count(*) AS n FROM retry_links l WHERE l.error_id IN (SELECT id FROM errors_in_range) GROUP BY l.error_id
)
SELECT e.status, coalesce(CASE WHEN e.transport THEN e.error ELSE e.rname END, '') AS reason,
       coalesce((SELECT name FROM categories WHERE id = e.category_id), 'unknown') AS category,
       count(*) AS responses, count(DISTINCT e.token_id) AS tokens,
       rfc3339(min(e.t)) AS first_seen, rfc3339(max(e.t)) AS last_seen,
       coalesce(sum(r.n), 0) AS retried_non_retryable
FROM errors_in_range e LEFT JOIN retries_per_error r ON r.error_id = e.id
GROUP BY e.status, CASE WHEN e.transport THEN e.error ELSE e.rname END, e.category_id
ORDER BY responses DESC, e.status NULLS FIRST, reason, category;

-- section: by_bucket
-- responses sums, per status and reason, to the summary's responses. bucket_responses: every
-- response in the bucket, accepted ones too (transport failures are not responses); share:
-- responses / bucket_responses, so an expired JWT that fails every send reads 1, not a count. A
-- bucket with no error is one row with empty status/reason, 0 responses and its bucket_responses;
-- a bucket with no responses at all has bucket_responses 0 (an outage, not a quiet hour). With
-- --by topic|env|app_version|push_type|reason, bucket is that value instead of a time
-- (app_version: of the token's latest registration), with the same sums.
WITH errors_by_key AS (
  SELECT by_key(:by, s.t, s.topic_id, s.env_id, s.push_type_id, coalesce(s.rname, s.error),
                CASE WHEN :by = 'app_version' THEN (SELECT f.reg_app_version_id FROM token_facts f WHERE f.token_id = s.token_id) END) AS k,
         s.status, coalesce(s.rname, s.error, '') AS reason,
         coalesce((SELECT name FROM categories WHERE id = s.category_id), 'unknown') AS category, count(*) AS responses
  FROM errors_in_range s
  GROUP BY k, s.status, coalesce(s.rname, s.error), s.category_id
), bucket_rows AS (
  SELECT x.k, x.status, x.reason, x.category, x.responses, coalesce(t.bucket_responses, 0) AS bucket_responses
  FROM errors_by_key x LEFT JOIN bucket_totals t ON t.k = x.k
  UNION ALL
  SELECT t.k, NULL, NULL, NULL, 0, t.bucket_responses FROM bucket_totals t
  WHERE t.bucket_responses > 0 AND NOT EXISTS (SELECT 1 FROM errors_by_key x WHERE x.k = t.k)
)
SELECT by_label(k, :by) AS bucket, status, reason, category, responses, bucket_responses,
       round(1.0 * responses / nullif(bucket_responses, 0), 6) AS share
FROM bucket_rows
ORDER BY k, responses DESC, status NULLS FIRST, reason, category;
