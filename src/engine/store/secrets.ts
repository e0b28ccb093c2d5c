/**
 * Seals secrets (integration tokens) with a key kept beside the database in
 * the data directory, readable by its owner only. A copy of the database
 * without the key file reveals no token.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const KEY_FILE = 'secret.key';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

function loadOrCreateKey(dataDir: string): Buffer {
  const path = join(dataDir, KEY_FILE);
  try {
    // 'wx' fails when the file exists, so two processes starting together keep the first key.
    writeFileSync(path, randomBytes(KEY_BYTES), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const key = readFileSync(path);
  if (key.length !== KEY_BYTES) throw new Error(`${path} is damaged: expected ${KEY_BYTES} bytes, found ${key.length}.`);
  return key;
}

export class SecretBox {
  readonly #dataDir: string;
  #key: Buffer | undefined;

  constructor(dataDir: string) {
    this.#dataDir = dataDir;
  }

  /** The key file is made on first use, not when the engine opens. */
  get #secretKey(): Buffer {
    this.#key ??= loadOrCreateKey(this.#dataDir);
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
