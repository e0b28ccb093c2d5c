/** Where a conversation can be read back: the MCP resource of the session. Answers link here. */
export const sessionUri = (guruSlug: string, sessionId: string): string =>
  `guru://${guruSlug}/sessions/${encodeURIComponent(sessionId)}`;

export const sessionsUri = (guruSlug: string): string => `guru://${guruSlug}/sessions`;

export const dataSourcesUri = (guruSlug: string): string => `guru://${guruSlug}/data-sources`;

/** A file attached to a question of a session: the `n`th of the session's attachments (1-based). */
export const attachmentUri = (guruSlug: string, sessionId: string, n: number): string =>
  `${sessionUri(guruSlug, sessionId)}/attachments/${n}`;
