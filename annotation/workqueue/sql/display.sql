-- The display read (annotation.workqueue.selectors.assignment_for_annotator on PostgreSQL): the rows select_related reads,
-- only the columns pair_display uses, for the annotator's own assignment in a campaign they are still a member of.
SELECT ${display_columns}
FROM ${assignment} a
JOIN ${campaign} c ON c.id = a.campaign_id
JOIN ${rating_schema} s ON s.id = c.rating_schema_id
JOIN ${pair} p ON p.id = a.pair_id
JOIN ${prompt} q ON q.id = p.prompt_id
JOIN ${response} ra ON ra.id = p.response_a_id
JOIN ${response} rb ON rb.id = p.response_b_id
WHERE a.id = %(assignment)s AND a.annotator_id = %(annotator)s
  AND EXISTS (SELECT 1 FROM ${members} m WHERE m.${member_campaign} = a.campaign_id AND m.${member_user} = a.annotator_id)
