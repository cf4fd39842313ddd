-- title: Silent (background) push throttling
-- description: Background pushes against the budget iOS tolerates per device and hour, and how
-- description: many actually woke the app (background receipts) at each hourly rate.
-- param: since  start of the range
-- param: until  end of the range, exclusive
-- param: budget=3  background pushes per token and clock hour before iOS throttles
-- param: topic  only responses for this topic
-- param: env  only responses sent to this env

-- section: summary
-- A background push: push_type background, or no push_type with content-available and no
-- alert, sound or badge; counted when APNs answered it (bg_pushes, derived at ingest). Load of a
-- token-hour: accepted background pushes to the token in one UTC clock hour.
-- over_budget_sends = sum of max(0, load - budget). priority_not_5: a missing priority is APNs'
-- default, 10.
WITH totals AS (
  -- One pass over the background pushes for the plain counts ...
  SELECT count(*) AS background_sends, coalesce(sum(status = 200), 0) AS accepted,
         coalesce(sum(coalesce(priority, 10) <> 5), 0) AS priority_not_5,
         coalesce(sum(with_alert), 0) AS with_alert
  FROM bg_pushes
  WHERE hour BETWEEN :since / 3600000 AND :until / 3600000 AND t >= :since AND t < :until
    AND (:topic IS NULL OR topic = :topic) AND (:env IS NULL OR env = :env)
), hours AS (
  -- ... and the accepted ones grouped by clock hour and token (the table's order: no sort).
  SELECT count(*) AS token_hours, coalesce(sum(max(0, load - :budget)), 0) AS over_budget_sends
  FROM (SELECT count(*) AS load FROM bg_pushes
        WHERE status = 200 AND hour BETWEEN :since / 3600000 AND :until / 3600000 AND t >= :since AND t < :until
    AND (:topic IS NULL OR topic = :topic) AND (:env IS NULL OR env = :env)
        GROUP BY hour, token_id)
)
SELECT totals.background_sends, totals.accepted, hours.token_hours, hours.over_budget_sends,
       round(1.0 * hours.over_budget_sends / nullif(totals.accepted, 0), 6) AS over_budget_share,
       totals.priority_not_5, totals.with_alert,
       (SELECT count(*) FROM sends s
        WHERE s.kind IN (0, 2) AND s.status IS NOT NULL AND s.t >= :since AND s.t < :until
          AND (:topic IS NULL OR s.topic = :topic) AND (:env IS NULL OR s.env = :env)
          AND s.status <> 200 AND s.reason = 'TooManyRequests') AS too_many_requests
FROM totals, hours;

-- section: by_hourly_rate
-- received: accepted pushes with a background receipt for their apns_id; median_lag_s:
-- receipt time minus response time, in seconds.
WITH rec AS (
  SELECT t, rt, count(*) OVER (PARTITION BY hour, token_id) AS load
  FROM bg_pushes
  WHERE status = 200 AND hour BETWEEN :since / 3600000 AND :until / 3600000 AND t >= :since AND t < :until
    AND (:topic IS NULL OR topic = :topic) AND (:env IS NULL OR env = :env)
)
SELECT CASE WHEN load = 1 THEN '1' WHEN load = 2 THEN '2' WHEN load = 3 THEN '3'
            WHEN load <= 6 THEN '4-6' ELSE '7+' END AS rate,
       count(*) AS accepted, count(rt) AS received,
       round(1.0 * count(rt) / count(*), 6) AS receipt_rate,
       round(median((rt - t) / 1000.0), 3) AS median_lag_s
FROM rec GROUP BY 1 ORDER BY min(load);
