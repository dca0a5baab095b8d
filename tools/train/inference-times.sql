-- Mean per-call inference times of the learned models in a fidelity ledger (docs/benchmarks.md):
-- sqlite3 BUNDLE/ledger.sqlite < tools/train/inference-times.sql
SELECT p.name AS protocol,
       COUNT(*) AS steps,
       ROUND(AVG(json_extract(e.payload_json, '$.policy_calls[0].call_ms')), 2) AS policy_call_ms,
       ROUND(AVG(json_extract(e.payload_json, '$.world_call.call_ms')), 2) AS world_call_ms
  FROM events e JOIN attempts a USING (attempt_id) JOIN runs r USING (run_id)
  JOIN protocols p ON p.protocol_id = r.protocol_id
 WHERE e.type = 'step'
 GROUP BY p.name;
SELECT 'judge sample' AS what, COUNT(*) AS samples, ROUND(AVG(s.decode_ms), 2) AS mean_ms
  FROM judge_samples s;
