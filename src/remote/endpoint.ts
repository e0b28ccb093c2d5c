/** One REST endpoint as the remote adapter calls it. */
import type { Operation } from '../core/errors.js';

export interface Endpoint {
  readonly operation: Operation;
  readonly method: 'GET' | 'POST' | 'DELETE';
  /** Below the base URL, as the spec writes it, trailing slash included: `/docs/answer/`. */
  readonly path: string;
  /** Safe to send again after a network error or a 5xx answer: it reads, or asks for the same thing twice. */
  readonly idempotent: boolean;
  /** The guru the call is for; it decides which key the call carries. Absent for calls of no guru (video lists). */
  readonly guru?: string;
}

/** `/docs/answer/` from the pieces `docs`, `answer`; every piece is URL-encoded. */
export const pathOf = (...segments: readonly string[]): string =>
  `/${segments.map((segment) => encodeURIComponent(segment)).join('/')}/`;
