/**
 * The one place that wires a backend together from the settings. Transports
 * receive the result and never import a backend's internals themselves.
 * Backends are loaded on demand so that a command pays only for what it uses.
 */
import type { Backend } from './core/assistant.js';
import type { Config } from './config.js';
import type { Logger } from './log.js';

export interface OpenedBackend extends Backend {
  close(): Promise<void>;
}

export async function openBackend(config: Config, logger: Logger): Promise<OpenedBackend> {
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
