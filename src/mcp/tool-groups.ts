/**
 * The groups of tools a client may ask for (GURU_TOOLS, `--tools`): an IDE
 * that only asks takes `asking` and leaves the rest of tools/list, and the
 * resources that go with them, out of its model's context. Every group by
 * default. This module imports nothing, so that src/config.ts can check names.
 */

/** Each group's tools, in the order tools/list shows them. */
export const TOOL_GROUPS = {
  /** Answers and search, their conversations and what goes with an answer; list_gurus to find a guru_slug. */
  asking: ['list_gurus', 'ask', 'semantic_search', 'follow_up_examples', 'list_sessions', 'get_session', 'delete_session', 'record_vote', 'answer_progress'],
  /** The knowledge base: adding, listing, reading again and deleting sources. */
  knowledge: ['add_sources', 'reindex_sources', 'delete_sources', 'list_sources'],
  /** Finding many sources at once: website crawls and YouTube channel and playlist listings. */
  crawling: ['start_crawl', 'crawl_status', 'stop_crawl', 'import_channel', 'import_playlist'],
  /** What a guru holds about the end users of an integration, and their profiles. */
  'end-users': ['get_enduser_data', 'erase_enduser_data', 'upsert_profiles'],
  /** Reading text aloud. */
  speech: ['text_to_speech'],
  /** Making and deleting gurus (a connection scoped to one guru's key has neither). */
  administration: ['create_guru', 'delete_guru'],
} as const satisfies Record<string, readonly string[]>;

export type ToolGroup = keyof typeof TOOL_GROUPS;

export const TOOL_GROUP_NAMES = Object.keys(TOOL_GROUPS) as ToolGroup[];

/** What the setting may also say for every group. */
const ALL = 'all';

/**
 * The groups a setting names: group names separated by commas, or `all`.
 * Anything else is an Error whose message lists the known names.
 */
export function parseToolGroups(text: string): ToolGroup[] {
  const names = text.split(',').map((name) => name.trim().toLowerCase()).filter((name) => name !== '');
  const known = `known groups: ${TOOL_GROUP_NAMES.join(', ')} (or ${ALL})`;
  if (names.length === 0) throw new Error(`names no tool group; ${known}`);
  if (names.includes(ALL)) return [...TOOL_GROUP_NAMES];
  const unknown = names.filter((name) => !(TOOL_GROUP_NAMES as string[]).includes(name));
  if (unknown.length > 0) throw new Error(`unknown tool group${unknown.length > 1 ? 's' : ''} ${unknown.map((name) => `"${name}"`).join(', ')}; ${known}`);
  return TOOL_GROUP_NAMES.filter((group) => names.includes(group));
}
