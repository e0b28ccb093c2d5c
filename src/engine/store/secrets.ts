/**
 * Seals secrets (integration tokens) with a key kept beside the database in
 * the data directory, readable by its owner only. A copy of the database
 * without the key file reveals no token.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { dataDirSecret, SECRET_KEY_FILE as KEY_FILE } from '../../data-dir.js';

const IV_BYTES = 12;
const TAG_BYTES = 16;

export class SecretBox {
  readonly #dataDir: string;
  #key: Buffer | undefined;

  constructor(dataDir: string) {
    this.#dataDir = dataDir;
  }

  /** The key file is made on first use, not when the engine opens. */
  get #secretKey(): Buffer {
    this.#key ??= dataDirSecret(this.#dataDir);
    return this.#key;
  }

  seal(plain: string): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#secretKey, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]);
  }

  open(sealed: Buffer): string {
    const iv = sealed.subarray(0, IV_BYTES);
    const tag = sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', this.#secretKey, iv);
    decipher.setAuthTag(tag);
    try {
      return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new Error(`A stored secret cannot be opened with ${join(this.#dataDir, KEY_FILE)}; set the integration again.`);
    }
  }
}
