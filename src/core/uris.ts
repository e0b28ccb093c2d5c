/** Where a conversation can be read back: the MCP resource of the session. Answers link here. */
export const sessionUri = (guruSlug: string, sessionId: string): string =>
  `guru://${guruSlug}/sessions/${encodeURIComponent(sessionId)}`;

export const sessionsUri = (guruSlug: string): string => `guru://${guruSlug}/sessions`;

export const dataSourcesUri = (guruSlug: string): string => `guru://${guruSlug}/data-sources`;
