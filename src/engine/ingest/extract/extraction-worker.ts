/**
 * The entry of an extraction worker thread (see extraction-pool.ts): runs its tasks one at a time,
 * in the order they came, and answers each with its result or its error. Built into
 * dist/bin/extraction-worker.js.
 */
import { parentPort } from 'node:worker_threads';
import { lowerThisThreadsPriority } from '../../lower-priority.js';
import { extractDocument } from './document.js';
import type { ExtractionTask, WorkerMessage } from './extraction-protocol.js';
import { markupToMarkdown } from './markup.js';
import { extractPage } from './page.js';
import { warmUp } from './warm-up.js';

const port = parentPort;
if (!port) throw new Error('extraction-worker.js runs in a worker thread, started by the extraction pool');

const answer = (message: WorkerMessage): void => port.postMessage(message);

async function perform(task: ExtractionTask) {
  switch (task.kind) {
    case 'page':
      return extractPage(task.page);
    case 'markup':
      return markupToMarkdown(task.markup, task.format);
    case 'document':
      return extractDocument(task.documentKind, task.data);
  }
}

/** Settles once the tasks received so far are answered: the pool sends the next before this one ends. */
let previous: Promise<void> = Promise.resolve();

port.on('message', (task: ExtractionTask) => {
  previous = previous.then(() =>
    perform(task).then(
      (result) => answer({ type: 'done', id: task.id, result }),
      (error: unknown) =>
        answer({
          type: 'failed',
          id: task.id,
          error: error instanceof Error ? { name: error.name, message: error.message } : { name: 'Error', message: String(error) },
        }),
    ),
  );
});

// The thread serving searches and answers gets a core whenever it has work; extraction takes the rest.
lowerThisThreadsPriority();
warmUp();
answer({ type: 'ready' });
