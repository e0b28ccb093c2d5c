/**
 * Users ask in everyday words ("remove a column", "glue strings together"); manuals name the
 * same thing in their own ("drop", "concatenate"). A small, generic map of such words lets a
 * lexical search find the passage anyway. Each group holds words that stand for one another in
 * technical documentation; nothing here names a product or one manual's feature.
 */
import { quoteTerm, type TextQuery } from './query.js';

const GROUPS: readonly string[] = [
  'remove delete drop erase',
  'add insert append',
  'change modify alter',
  'copy backup clone duplicate',
  'undo rollback revert',
  'glue combine concatenate concatenation',
  'see show view display inspect',
  'check verify validate',
  'fast faster quick quickly speed performance',
  'slow slower performance',
  'stop cancel terminate abort interrupt',
  'biggest largest maximum limit',
  'smallest least minimum',
  'wait timeout',
  'start begin',
  'shrink reclaim compact',
  'run execute',
  'compute calculate',
  'save store persist',
  'load import',
  'export dump',
  'permission permissions privilege privileges',
  'corrupt corrupted corruption damaged',
  'sort sorted ordering',
  'split partition divide',
  'ram memory',
  'thread threads concurrency',
  'statistics analyze',
  'error failure fail failing',
  'upgrade migrate',
  'automatically automatic',
  'restore recover recovery',
  'id identifier',
];

const ALTERNATIVES: ReadonlyMap<string, readonly string[]> = (() => {
  const map = new Map<string, string[]>();
  for (const group of GROUPS) {
    const words = group.split(' ');
    for (const word of words) {
      const alternatives = map.get(word) ?? [];
      for (const other of words) if (other !== word && !alternatives.includes(other)) alternatives.push(other);
      map.set(word, alternatives);
    }
  }
  return map;
})();

/** A query widened with the alternatives of its words. */
export interface ExpandedQuery extends TextQuery {
  /** Each added word → the question word it stands for. */
  readonly aliases: ReadonlyMap<string, string>;
}

/** The query with every word's alternatives added (OR-ed in); a word of the question is never an alias. */
export function withSynonyms(query: TextQuery): ExpandedQuery {
  const aliases = new Map<string, string>();
  const own = new Set(query.terms);
  for (const term of query.terms) {
    for (const alternative of ALTERNATIVES.get(term) ?? []) {
      if (!own.has(alternative) && !aliases.has(alternative)) aliases.set(alternative, term);
    }
  }
  if (aliases.size === 0 || query.match === undefined) return { ...query, aliases };
  return { ...query, match: [query.match, ...[...aliases.keys()].map(quoteTerm)].join(' OR '), aliases };
}
