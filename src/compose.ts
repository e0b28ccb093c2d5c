/**
 * The one place that wires a backend together from the settings. Transports
 * receive the result and never import a backend's internals themselves.
 * Backends are loaded on demand so that a command pays only for what it uses:
 * the local path never loads the remote adapter, and the remote path never
 * opens SQLite.
 */
import type { Backend } from './core/assistant.js';
import type { Config } from './config.js';
import type { Logger } from './log.js';

export interface OpenedBackend extends Backend {
  close(): Promise<void>;
}

export async function openBackend(config: Config, logger: Logger): Promise<OpenedBackend> {
  if (config.backend === 'remote') return openRemote(config, logger);
  const { LocalEngine } = await import('./engine/local-engine.js');
  const engine = LocalEngine.open({ dataDir: config.dataDir, logger });
  return {
    kind: 'local',
    assistant: engine,
    admin: engine,
    defaultGuru: config.defaultGuru,
    close: () => engine.close(),
  };
}

/** The service's REST API at `apiUrl`. It has no guru administration, so the backend has no `admin`. */
async function openRemote(config: Config, logger: Logger): Promise<OpenedBackend> {
  // The Config schema already insists on a key; this keeps a hand-built Config honest too.
  if (config.apiKey === undefined) throw new Error('GURU_API_KEY is required when the backend is remote');
  const { RemoteAssistant } = await import('./remote/remote-assistant.js');
  const assistant = new RemoteAssistant({ baseUrl: config.apiUrl, apiKey: config.apiKey, logger });
  const { origin, pathname } = new URL(config.apiUrl); // without any user:password@ of the URL
  logger.info('remote backend', { url: `${origin}${pathname}` });
  return {
    kind: 'remote',
    assistant,
    defaultGuru: config.defaultGuru,
    close: () => assistant.close(),
  };
}
