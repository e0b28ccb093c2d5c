/** One page of a collection read with `limit + 1` rows: the page, and whether more follow. */
export interface Paged<T> {
  readonly items: T[];
  readonly hasMore: boolean;
}

/** A page window: `limit` records from `offset`. */
export interface PageWindow {
  readonly limit: number;
  readonly offset: number;
}

/** Rows read as `LIMIT limit + 1` turned into a page. */
export function pageOf<T>(rows: T[], limit: number): Paged<T> {
  return { items: rows.slice(0, limit), hasMore: rows.length > limit };
}
