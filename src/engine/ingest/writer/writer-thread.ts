/**
 * The entry of the writer thread (see writer.ts): ingestion's whole write side. It opens a
 * database connection of its own and runs the source processor over it: claims, leases and
 * their renewals, reading (fetching here, extraction in worker threads it starts), chunking and
 * the batch commits, jobs completed or failed. The serving thread only queues jobs and reads.
 * Built into dist/bin/writer-thread.js.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Logger, LogLevel } from '../../../log.js';
import type { SemanticSearch } from '../../search/semantic.js';
import { IntegrationRepository } from '../../store/integrations.js';
import { JobRepository } from '../../store/jobs.js';
import { SecretBox } from '../../store/secrets.js';
import { openStore } from '../../store/open-store.js';
import { SourceProcessor, type Embedder } from '../processor.js';
import { SourceReading } from '../reading.js';
import type { FromWriter, ToWriter, WriterSettings } from './writer-protocol.js';

if (!parentPort) throw new Error('writer-thread.js runs in a worker thread, started by the ingestion writer');
const port = parentPort;
const settings = workerData as WriterSettings;
const send = (message: FromWriter): void => port.postMessage(message);

/** How often the thread looks whether it has been idle long enough to stop. */
const IDLE_CHECK_MS = 1_000;

const logAt =
  (level: LogLevel) =>
  (message: string, fields?: Record<string, unknown>): void =>
    send({ type: 'log', level, message, ...(fields === undefined ? {} : { fields }) });
const logger: Logger = { error: logAt('error'), warn: logAt('warn'), info: logAt('info'), debug: logAt('debug') };

// A connection of its own (SQLite), or a pool of its own (PostgreSQL).
const sql = await openStore({ dataDir: settings.dataDir, ...(settings.databaseUrl === undefined ? {} : { databaseUrl: settings.databaseUrl }), logger });
const queue = { privateNetwork: settings.allowPrivateNetwork };
const jobs = new JobRepository(sql, queue);
for (const owner of settings.takeOver) {
  const released = await jobs.releaseLeasesOf(owner);
  if (released > 0) logger.info('took over work left by a crashed writer thread', { jobs: released });
}
const integrations = new IntegrationRepository(sql, new SecretBox(settings.dataDir));
const reading = new SourceReading(
  {
    allowPrivateNetwork: settings.allowPrivateNetwork,
    ...(settings.youtubeBaseUrl === undefined ? {} : { youtubeBaseUrl: settings.youtubeBaseUrl }),
    ...(settings.extraction === undefined ? {} : { extraction: settings.extraction }),
  },
  (guruId, kind) => integrations.credentials(guruId, kind),
);
// The provider (and its HTTP client) loads only when embeddings are configured.
const embeddings = settings.embeddings;
const semantic: Promise<SemanticSearch> | undefined =
  embeddings &&
  Promise.all([import('../../../providers/embeddings.js'), import('../../search/semantic.js')]).then(([{ EmbeddingsProvider }, { SemanticSearch }]) =>
    SemanticSearch.open(sql, new EmbeddingsProvider(embeddings), logger),
  );
const embedder: Embedder | undefined = semantic && { embedSource: async (sourceId, signal) => (await semantic).embedSource(sourceId, signal) };
const processor = new SourceProcessor(sql, queue, reading, logger, settings.processing, embedder);

let stopping = false;
let idleSince: number | undefined;
const idleCheck = setInterval(() => void checkIdle(), IDLE_CHECK_MS);

async function checkIdle(): Promise<void> {
  if (stopping) return;
  if (!processor.idle || (await jobs.nextAvailableAt()) !== null) {
    idleSince = undefined;
    return;
  }
  idleSince ??= Date.now();
  if (Date.now() - idleSince >= settings.idleMs && !stopping) await stop();
}

async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  clearInterval(idleCheck);
  try {
    // Commits what was read and gives back the jobs under way: from here on it holds no lease.
    await processor.close();
    send({ type: 'stopping' });
    await Promise.all([reading.close(), semantic?.then((it) => it.close())]);
  } finally {
    await sql.close();
    port.close();
  }
}

port.on('message', (message: ToWriter) => {
  if (message.type === 'kick') processor.kick();
  else void stop();
});

send({ type: 'ready', owner: processor.owner });
processor.kick();
