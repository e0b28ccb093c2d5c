/**
 * The state store on Redis (GURU_REDIS_URL): what `<dataDir>/state.sqlite` holds for one machine,
 * shared by every process of a deployment. Loaded only when a Redis URL is set, so that the
 * embedded path never loads the client. Keys are `guru-mcp:<namespace>::<key>`, values and
 * expiry as Keyv writes them (absolute PXAT), so a line expires in Redis when it would in SQLite.
 *
 * Redis here holds only what may be lost: a store that cannot reach it reads as a miss and
 * writes nothing, and it tries again at most once a second rather than queueing commands or
 * reconnecting in the background (a command would otherwise wait for Redis to come back).
 */
import KeyvRedis, { type createClient } from '@keyv/redis';
import Keyv from 'keyv';

/** Every key of guru-mcp in a shared Redis database starts with this. */
export const KEY_PREFIX = 'guru-mcp:';
/** How long connecting may take before the operation reads as a miss. */
const CONNECT_TIMEOUT_MS = 2_000;
/** After a failed connection, operations read as misses this long before the next attempt. */
const RETRY_AFTER_MS = 1_000;
/** Keys per SCAN step when deleting by prefix. */
const SCAN_COUNT = 500;

type RedisClient = ReturnType<typeof createClient>;

/**
 * One step of a GCRA bucket, atomically: the stored value is the bucket's theoretical arrival
 * time (ms since epoch), on Redis's own clock (TIME) unless the caller gives the time (ARGV[1] not empty). Refused (returns the milliseconds until a request fits) when the next
 * arrival would lie more than the window ahead; otherwise stores it, expiring when it is reached,
 * and returns 0. Numbers travel as strings: a Lua number reply would be truncated to an integer.
 */
const GCRA_SCRIPT = `
local now = tonumber(ARGV[1])
if now == nil then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
end
local interval = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local stored = tonumber(redis.call('GET', KEYS[1]) or '')
local arrival = now
if stored ~= nil and stored > now then arrival = stored end
local next = arrival + interval
if next - now > window then return string.format('%.3f', next - window - now) end
redis.call('SET', KEYS[1], string.format('%.3f', next), 'PX', math.ceil(next - now))
return '0'
`;

/** Keyv's Redis store with what guru-mcp's state needs beyond get/set/delete. */
export class RedisStateStore extends KeyvRedis<unknown> {
  #connecting: Promise<void> | undefined;
  #retryAt = 0;

  constructor(url: string, namespace: string) {
    // No offline queue and no background reconnection: a command on a lost connection fails at once
    // (a miss), and the next operation connects again.
    super({ url, disableOfflineQueue: true, socket: { connectTimeout: CONNECT_TIMEOUT_MS, reconnectStrategy: false } }, {
      namespace: `${KEY_PREFIX}${namespace}`,
      throwOnConnectError: false,
    });
  }

  /** The connected client; while Redis cannot be reached, the closed one, whose commands fail (and read as misses). */
  override async getClient(): Promise<RedisClient> {
    const client = this.client as RedisClient;
    if (client.isReady || Date.now() < this.#retryAt) return client;
    this.#connecting ??= this.#connect(client).finally(() => {
      this.#connecting = undefined;
    });
    await this.#connecting;
    return client;
  }

  async #connect(client: RedisClient): Promise<void> {
    if (client.isOpen) await client.destroy();
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        client.connect(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`Redis did not answer within ${CONNECT_TIMEOUT_MS} ms`)), CONNECT_TIMEOUT_MS);
        }),
      ]);
    } catch (error) {
      this.#retryAt = Date.now() + RETRY_AFTER_MS;
      if (client.isOpen) client.destroy();
      this.emit('error', error);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The key in Redis of `key` in this store's namespace. */
  redisKey(key: string): string {
    return this.createKeyPrefix(key, this.namespace);
  }

  /** Deletes this namespace's keys that start with `prefix` (found with SCAN, never KEYS); returns how many went. */
  async deleteKeysStartingWith(prefix: string): Promise<number> {
    const client = await this.getClient();
    const match = `${globEscape(this.redisKey(prefix))}*`;
    let deleted = 0;
    let cursor = '0';
    do {
      const result = await client.scan(cursor, { MATCH: match, COUNT: SCAN_COUNT });
      cursor = String(result.cursor);
      if (result.keys.length > 0) deleted += await client.unlink(result.keys);
    } while (cursor !== '0');
    return deleted;
  }

  /**
   * One request against the GCRA bucket `key` (see rate-limiter.ts), decided in Redis so that
   * every process charges the same bucket, at `now` or, without it, Redis's time: the milliseconds
   * until a request fits, 0 if it was let through.
   */
  async gcra(key: string, now: number | undefined, intervalMs: number, windowMs: number): Promise<number> {
    const client = await this.getClient();
    const reply = await client.eval(GCRA_SCRIPT, { keys: [this.redisKey(key)], arguments: [now === undefined ? '' : String(now), String(intervalMs), String(windowMs)] });
    return Number(reply);
  }
}

/** Opens the namespace `namespace` of the state store at `url` (redis:// or rediss://). */
export function openRedisStateStore(url: string, namespace: string): Keyv {
  const store = new RedisStateStore(url, namespace);
  return new Keyv({ store, namespace: store.namespace });
}

/** `text` as a literal in a SCAN pattern. */
const globEscape = (text: string): string => text.replace(/[*?[\]\\^-]/g, '\\$&');
