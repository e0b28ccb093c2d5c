/**
 * Which guru a call reaches: the one a bearer key is limited to, the one the
 * call names, the configured default, or the only one there is. Anything else
 * is an error that tells the model what to pass.
 */
import type { Backend } from '../core/assistant.js';
import { Errors } from '../core/errors.js';
import type { Operation } from '../core/errors.js';

export class GuruSelector {
  readonly #backend: Backend;
  readonly #scope: string | undefined;
  /** Whether the configured default guru (GURU_DEFAULT_GURU) was found to exist. */
  #defaultFound = false;

  constructor(backend: Backend, scope?: string) {
    this.#backend = backend;
    this.#scope = scope;
  }

  /** The slug a call of `operation` works on; throws a GuruError the model can act on. */
  async select(operation: Operation, requested: string | undefined): Promise<string> {
    if (this.#scope !== undefined) {
      if (requested === undefined || requested === this.#scope) return this.#scope;
      throw Errors.guruOutsideScope(operation, requested, this.#scope);
    }
    if (requested !== undefined) return requested;
    const admin = this.#backend.admin;
    const configured = this.#backend.defaultGuru;
    if (configured !== undefined) {
      if (admin === undefined || this.#defaultFound) return configured;
      // Said once it exists; until then a call says the setting is what names a guru that is not there.
      const slugs = (await admin.listGurus()).map((guru) => guru.slug);
      this.#defaultFound = slugs.includes(configured);
      if (this.#defaultFound) return configured;
      throw Errors.defaultGuruMissing(operation, configured, slugs);
    }

    if (admin === undefined) {
      throw Errors.noGuruSelected('Pass guru_slug: this server has no default guru configured (GURU_DEFAULT_GURU).');
    }
    const slugs = (await admin.listGurus()).map((guru) => guru.slug);
    if (slugs.length === 1) return slugs[0] as string;
    if (slugs.length === 0) {
      throw Errors.noGuruSelected(
        'No guru exists yet. Create one: call create_guru with {"slug": "docs"} (any slug of lowercase letters, digits and hyphens; from a shell: `guru-mcp guru create docs`). Then add knowledge with add_sources and ask again; with one guru, guru_slug can be left out.',
      );
    }
    throw Errors.noGuruSelected(`Several gurus exist; pass guru_slug as one of: ${slugs.join(', ')}.`);
  }

  /** Slugs this connection may reach, for resource listings and completion. */
  async known(): Promise<string[]> {
    if (this.#scope !== undefined) return [this.#scope];
    const admin = this.#backend.admin;
    if (admin !== undefined) return (await admin.listGurus()).map((guru) => guru.slug);
    return this.#backend.defaultGuru === undefined ? [] : [this.#backend.defaultGuru];
  }

  /** Whether `slug` is within this connection's reach (existence is the backend's business). */
  allows(slug: string): boolean {
    return this.#scope === undefined || this.#scope === slug;
  }
}
