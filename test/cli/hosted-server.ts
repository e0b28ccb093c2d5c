/**
 * A guru-mcp REST server on 127.0.0.1 standing in for a hosted deployment, with one guru
 * (`hosted`), for CLI tests of the remote backend: `env` points a CLI run at it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openBackend, openRateLimiter, type OpenedBackend } from '../../src/compose.js';
import { Config } from '../../src/config.js';
import { startHttpServer } from '../../src/http/server.js';
import { silentLogger } from '../../src/log.js';

export interface HostedServer {
  /** The server's own backend, to see what the CLI's requests did there. */
  readonly backend: OpenedBackend;
  /** GURU_BACKEND, GURU_API_URL and GURU_API_KEY for a CLI run against it. */
  readonly env: Record<string, string>;
  close(): Promise<void>;
}

export async function startHostedServer(settings: { allowPrivateNetwork?: boolean } = {}): Promise<HostedServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'guru-cli-hosted-'));
  const config = Config.parse({ dataDir, rateLimitPerMinute: 0, ...settings });
  const backend = await openBackend(config, silentLogger);
  const limiter = await openRateLimiter(config, silentLogger);
  const server = await startHttpServer({ backend, logger: silentLogger, host: '127.0.0.1', port: 0, limiter });
  const key = (await backend.admin!.createGuru({ slug: 'hosted' })).api_key;
  return {
    backend,
    env: { GURU_BACKEND: 'remote', GURU_API_URL: `${server.url}/api/v1`, GURU_API_KEY: key },
    async close() {
      await server.close();
      await limiter.close();
      await backend.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
