-- The annotator's own assignment, locked, with its pair, campaign and schema (annotation.workqueue.store.postgresql,
-- PostgreSQLStore.locked_own: the ORM's select_related query written by hand).
SELECT ${locked_columns}
FROM ${assignment} a
JOIN ${pair} p ON p.id = a.pair_id
JOIN ${campaign} c ON c.id = a.campaign_id
JOIN ${rating_schema} s ON s.id = c.rating_schema_id
WHERE a.id = %(assignment)s AND a.annotator_id = %(annotator)s
  AND EXISTS (SELECT 1 FROM ${members} m WHERE m.${member_campaign} = a.campaign_id AND m.${member_user} = a.annotator_id)
FOR UPDATE OF a
