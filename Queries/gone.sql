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
WITH r AS (
  SELECT s.t, s.token_id, s.status FROM sends s
  WHERE s.kind IN (0, 2) AND s.status IS NOT NULL AND s.t >= :since AND s.t < :until
    AND (:topic IS NULL OR s.topic = :topic) AND (:env IS NULL OR s.env = :env)
), gone AS (
  -- Driven from the few tokens that have a 410 (token_facts), through the (token_id, t) index.
  SELECT f.token_id, f.first_410, coalesce(f.first_410_ts, f.first_410) AS gone_ts, s.t, s.status
  FROM token_facts f CROSS JOIN sends s ON s.token_id = f.token_id AND s.t >= f.first_410
  WHERE f.first_410 IS NOT NULL
    AND s.kind IN (0, 2) AND s.status IS NOT NULL AND s.t >= :since AND s.t < :until
    AND (:topic IS NULL OR s.topic = :topic) AND (:env IS NULL OR s.env = :env)
)
SELECT count(*) AS responses,
       coalesce(sum(r.status = 410), 0) AS gone,
       round(1.0 * sum(r.status = 410) / nullif(count(*), 0), 6) AS gone_rate,
       (SELECT count(DISTINCT token_id) FROM gone WHERE status = 410 AND t = first_410) AS tokens_gone,
       (SELECT count(*) FROM gone g
         WHERE g.t > g.first_410
           AND NOT EXISTS (SELECT 1 FROM registers x WHERE x.token_id = g.token_id
                           AND x.t > g.gone_ts AND x.t <= g.t)) AS sends_after_gone
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
