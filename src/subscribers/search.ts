// Free-text search over subscribers: the trigram index (sql/0020) plus the rows not in it yet
// (the backlog of bulk imports, sql/0060), which are scanned. Kept apart from store.ts because
// the import's threads use the indexed text expression too.

/** The text of a subscriber's attribs that search covers: its string values, space-separated. */
export const SEARCHABLE_ATTRIBS = (table: string) =>
  `(SELECT group_concat(value, ' ') FROM json_tree(${table}.attribs) WHERE type = 'text')`;

/** Subscribers on the backlog: bulk-imported, not indexed yet. */
const UNINDEXED = 'SELECT u.id FROM subscriber_search_backlog b JOIN subscribers u ON u.id BETWEEN b.first_id AND b.last_id';

/** FTS5 phrase for a substring search (quotes doubled, so any text is literal). */
const ftsPhrase = (s: string) => `"${s.replace(/"/g, '""')}"`;

export const likeContains = (s: string) => `%${s.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;

/**
 * Subscribers whose name, e-mail or attribute values contain `term` (case-insensitive; three
 * characters or more, what a trigram can match). The backlog is matched with LIKE, which folds
 * ASCII case only, where the index folds all of Unicode.
 */
export function containsText(term: string): { sql: string; params: unknown[] } {
  const like = likeContains(term);
  return {
    sql: `subscribers.id IN (SELECT rowid FROM subscribers_fts WHERE subscribers_fts MATCH ?
      UNION ALL ${UNINDEXED} WHERE u.name LIKE ? ESCAPE '\\' OR u.email LIKE ? ESCAPE '\\' OR ${SEARCHABLE_ATTRIBS('u')} LIKE ? ESCAPE '\\')`,
    params: [ftsPhrase(term), like, like, like],
  };
}

/**
 * A superset of the subscribers with `text` among their attribute values: the index narrows a
 * segment's rows before its expression runs (the backlog is taken whole; the expression decides).
 */
export function mayHaveAttribText(text: string): { sql: string; params: unknown[] } {
  return {
    sql: `subscribers.id IN (SELECT rowid FROM subscribers_fts WHERE subscribers_fts MATCH ? UNION ALL ${UNINDEXED})`,
    params: [`attribs : ${ftsPhrase(text)}`],
  };
}
