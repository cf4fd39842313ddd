-- title: Token gone (410) rates
-- description: How many responses were 410 (Unregistered/ExpiredToken), how many tokens APNs
-- description: retired, and whether the provider kept sending to tokens after their first 410.
-- param: since  start of the range (responses by time)
-- param: until  end of the range, exclusive
-- param: by=day  bucket: hour, day or week
-- param: topic  only responses for this topic
-- param: env  only responses sent to production or sandbox

-- section: summary
-- A response is a send or response record with a status (one attempt).
-- tokens_gone: distinct tokens whose first 410 response (over all history) is in the range.
-- sends_after_gone: responses to a token later than its first 410, with no registration of the
-- token between that 410's APNs timestamp (or, without one, the 410's time) and the send.
WITH r AS MATERIALIZED (
  SELECT s.t, s.token_id, s.status FROM sends s
  WHERE s.kind IN (0, 2) AND s.status IS NOT NULL AND s.t >= :since AND s.t < :until
    AND (:topic IS NULL OR s.topic = :topic) AND (:env IS NULL OR s.env = :env)
)
SELECT count(*) AS responses,
       coalesce(sum(r.status = 410), 0) AS gone,
       round(1.0 * sum(r.status = 410) / nullif(count(*), 0), 6) AS gone_rate,
       (SELECT count(DISTINCT r2.token_id) FROM r AS r2 JOIN token_facts f ON f.token_id = r2.token_id
         WHERE r2.status = 410 AND r2.t = f.first_410) AS tokens_gone,
       (SELECT count(*) FROM r AS r3 JOIN token_facts f ON f.token_id = r3.token_id
         WHERE r3.t > f.first_410
           AND NOT EXISTS (SELECT 1 FROM registers g WHERE g.token_id = r3.token_id
                           AND g.t > coalesce(f.first_410_ts, f.first_410) AND g.t <= r3.t)) AS sends_after_gone
FROM r;

-- section: by_bucket
SELECT bucket(b, :by) AS bucket, responses, gone, round(1.0 * gone / responses, 6) AS gone_rate, tokens_gone
FROM (
  SELECT bucket_start(s.t, :by) AS b, count(*) AS responses, sum(s.status = 410) AS gone,
         count(DISTINCT CASE WHEN s.status = 410 THEN s.token_id END) AS tokens_gone
  FROM sends s
  WHERE s.kind IN (0, 2) AND s.status IS NOT NULL AND s.t >= :since AND s.t < :until
    AND (:topic IS NULL OR s.topic = :topic) AND (:env IS NULL OR s.env = :env)
  GROUP BY b
)
ORDER BY b;
