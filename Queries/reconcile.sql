-- title: Reconcile with Apple's delivery metrics
-- description: Our per-day, per-push-type response counts against the Apple Push Notifications
-- description: Console delivery-metrics export (ingest its CSV like any log); flags days where our
-- description: accepted count and Apple's received count differ by more than 1%.
-- records: responses
-- when-empty: apple  no Apple delivery metrics in the database, so nothing to compare: export them from the Push Notifications Console (CSV) and ingest that file
-- param: since time  start of the range (days)
-- param: until time  end of the range, exclusive
-- column: day,push_type,status key
-- column: difference_share rate
-- column: flag text
-- common:
-- A response's push type is its apns-push-type; without one it is background when the payload is a
-- background push by the silent report's rule (content-available, no alert, sound or badge), else
-- alert (APNs' default).
typed_responses AS (
  SELECT s.time_ms, s.status, coalesce((SELECT name FROM push_types WHERE id = s.push_type_id), CASE WHEN s.content_available = 1 AND coalesce(s.has_alert, 0) = 0 AND coalesce(s.has_sound, 0) = 0 AND coalesce(s.has_badge, 0) = 0 THEN 'background' ELSE 'alert' END) AS push_type
  FROM responses s
)

-- section: summary
WITH daily AS (
  SELECT a.day, a.push_type,
         sum(CASE WHEN lower(a.status) LIKE 'received%' THEN a.count END) AS apple_received,
         (SELECT count(*) FROM typed_responses s WHERE s.status = 200
            AND s.time_ms >= CAST(strftime('%s', a.day) AS INTEGER) * 1000 AND s.time_ms < (CAST(strftime('%s', a.day) AS INTEGER) + 86400) * 1000
            AND s.push_type = a.push_type) AS our_accepted
  FROM apple_metrics a
  WHERE (:since < -1000000000000000 OR a.day >= bucket(:since, 'day')) AND (:until > 1000000000000000 OR a.day < bucket(:until, 'day'))
  GROUP BY a.day, a.push_type
)
SELECT count(*) AS days_compared,
       coalesce(sum(abs(coalesce(our_accepted, 0) - coalesce(apple_received, 0)) > 0.01 * coalesce(apple_received, 0)), 0) AS days_flagged,
       coalesce(sum(our_accepted), 0) AS our_accepted, coalesce(sum(apple_received), 0) AS apple_received
FROM daily;

-- section: by_day
WITH apple_daily AS (
  SELECT day, push_type,
         sum(CASE WHEN lower(status) LIKE 'received%' THEN count END) AS apple_received,
         sum(CASE WHEN lower(status) LIKE 'delivered%' THEN count END) AS apple_delivered,
         sum(CASE WHEN lower(status) LIKE '%disabled%' THEN count END) AS apple_discarded_disabled
  FROM apple_metrics
  WHERE (:since < -1000000000000000 OR day >= bucket(:since, 'day')) AND (:until > 1000000000000000 OR day < bucket(:until, 'day'))
  GROUP BY day, push_type
), ours_daily AS (
  SELECT a.day, a.push_type,
         count(s.time_ms) AS our_responses, coalesce(sum(s.status = 200), 0) AS our_accepted
  FROM apple_daily a LEFT JOIN typed_responses s
    ON s.time_ms >= CAST(strftime('%s', a.day) AS INTEGER) * 1000 AND s.time_ms < (CAST(strftime('%s', a.day) AS INTEGER) + 86400) * 1000
    AND s.push_type = a.push_type
  GROUP BY a.day, a.push_type
)
SELECT a.day, a.push_type, o.our_responses, o.our_accepted, a.apple_received, a.apple_delivered, a.apple_discarded_disabled,
       o.our_accepted - coalesce(a.apple_received, 0) AS accepted_minus_received,
       round(1.0 * (o.our_accepted - coalesce(a.apple_received, 0)) / nullif(a.apple_received, 0), 6) AS difference_share,
       CASE WHEN abs(o.our_accepted - coalesce(a.apple_received, 0)) > 0.01 * coalesce(a.apple_received, 0) THEN 'CHECK' ELSE 'ok' END AS flag
FROM apple_daily a JOIN ours_daily o ON o.day = a.day AND o.push_type = a.push_type
ORDER BY a.day, a.push_type;

-- section: apple
SELECT day, push_type, status, count FROM apple_metrics
WHERE (:since < -1000000000000000 OR day >= bucket(:since, 'day')) AND (:until > 1000000000000000 OR day < bucket(:until, 'day'))
ORDER BY day, push_type, status;
