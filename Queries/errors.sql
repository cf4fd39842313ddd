-- title: APNs errors
-- description: Every non-accepted response by time bucket, status and reason, with the APNs
-- description: category, and retries of responses that must never be retried.
-- param: since  start of the range
-- param: until  end of the range, exclusive
-- param: by=hour  bucket: minute, 5m, hour or day, or a dimension: topic, env, app_version, push_type, reason
-- param: topic  only responses for this topic
-- param: env  only responses sent to this env

-- section: summary
-- retried_non_retryable: responses that came after a token-gone, token-bad or request error
-- for the same apns_id (counted on the row of that first error).
SELECT s.status, coalesce(s.reason, '') AS reason, coalesce(s.category, 'unknown') AS category,
       count(*) AS responses, count(DISTINCT s.token_id) AS tokens,
       rfc3339(min(s.t)) AS first_seen, rfc3339(max(s.t)) AS last_seen,
       coalesce(sum(CASE WHEN c.never_retry = 1 AND s.apns_id IS NOT NULL THEN
         (SELECT count(*) FROM sends s2 WHERE s2.apns_id = s.apns_id AND s2.kind IN (0, 2)
            AND s2.status IS NOT NULL AND s2.t > s.t) END), 0) AS retried_non_retryable
FROM sends s LEFT JOIN categories c ON c.category = s.category
WHERE s.kind IN (0, 2) AND s.status IS NOT NULL AND s.status <> 200 AND s.t >= :since AND s.t < :until
  AND (:topic IS NULL OR s.topic = :topic) AND (:env IS NULL OR s.env = :env)
GROUP BY s.status, s.reason, s.category
ORDER BY responses DESC;

-- section: by_bucket
-- responses sums, per status and reason, to the summary's responses. Buckets inside the range with
-- no error are shown as one row with empty status/reason and 0 responses. With --by
-- topic|env|app_version|push_type|reason, bucket is that value instead of a time (app_version: of
-- the token's latest registration), with the same sums.
SELECT by_label(b, :by) AS bucket, status, reason, category, responses
FROM (
  SELECT by_key(:by, s.t, s.topic, s.env, s.push_type, s.reason,
                CASE WHEN :by = 'app_version' THEN (SELECT f.reg_app_version FROM token_facts f WHERE f.token_id = s.token_id) END) AS b,
         s.status, coalesce(s.reason, '') AS reason,
         coalesce(s.category, 'unknown') AS category, count(*) AS responses
  FROM sends s
  WHERE s.kind IN (0, 2) AND s.status IS NOT NULL AND s.status <> 200 AND s.t >= :since AND s.t < :until
    AND (:topic IS NULL OR s.topic = :topic) AND (:env IS NULL OR s.env = :env)
  GROUP BY b, s.status, s.reason, s.category
)
ORDER BY b, responses DESC;
