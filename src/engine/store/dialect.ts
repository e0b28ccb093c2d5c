/**
 * The few spellings where SQLite and PostgreSQL differ, each in one place: statements are written
 * once and call these where they need one. Everything else (ON CONFLICT, RETURNING, CTEs, window
 * functions, `||`) reads the same in both.
 */
import type { Dialect } from './sql.js';

/**
 * A subquery of the values of a JSON array passed as one parameter (`?` by default): lists of ids
 * or labels of any length, bound as `JSON.stringify(list)`.
 */
export const jsonValues = (dialect: Dialect, type: 'integer' | 'text', param = '?'): string =>
  dialect === 'sqlite'
    ? `(SELECT value FROM json_each(${param}))`
    : `(SELECT value${type === 'integer' ? '::bigint' : ''} FROM jsonb_array_elements_text(${param}::jsonb) AS value)`;

/**
 * The elements of a JSON array stored in a text column, as rows with one column `value`: SQLite's
 * `json_each`, PostgreSQL's `jsonb_array_elements_text`. Use after FROM: `FROM ${jsonElements(d, 's.labels')} l`.
 */
export const jsonElements = (dialect: Dialect, column: string): string =>
  dialect === 'sqlite' ? `json_each(${column})` : `jsonb_array_elements_text(${column}::jsonb) AS value`;

/** Unicode lower case of a text (SQLite's lower() folds ASCII only; the engine registers casefold()). */
export const casefold = (dialect: Dialect, expression: string): string => (dialect === 'sqlite' ? `casefold(${expression})` : `lower(${expression})`);

/** The larger of two values (SQLite's two-argument max(), PostgreSQL's greatest()). */
export const larger = (dialect: Dialect, a: string, b: string): string => (dialect === 'sqlite' ? `max(${a}, ${b})` : `greatest(${a}, ${b})`);

/** The smaller of two values. */
export const smaller = (dialect: Dialect, a: string, b: string): string => (dialect === 'sqlite' ? `min(${a}, ${b})` : `least(${a}, ${b})`);

/** LIKE that ignores ASCII case, as SQLite's LIKE does. */
export const likeIgnoringCase = (dialect: Dialect): string => (dialect === 'sqlite' ? 'LIKE' : 'ILIKE');

/**
 * The elements of a JSON array of arrays passed as one parameter (`?`), as rows with one
 * column `value`: a batch of rows bound as one `JSON.stringify(rows)`. Read their fields with
 * `value ->> 0`, `value ->> 1`… (text, or SQLite's own type; cast where a number is meant). Use
 * after FROM: `FROM ${jsonRows(d)}`.
 */
export const jsonRows = (dialect: Dialect): string =>
  dialect === 'sqlite' ? 'json_each(?)' : 'jsonb_array_elements(?::jsonb) AS value';
