/**
 * The native SQLite module survives V8 collecting its statements outside JavaScript, as at the end
 * of a worker thread (the writer thread is one). better-sqlite3 12 compiled against the headers of
 * Node 24.19 to 24.21 aborts the process there (`Assertion failed: (env) != nullptr` in
 * `node::RemoveEnvironmentCleanupHook`, nodejs/node#65446); every test that ingests then dies at
 * random, so this one names the cause.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const MODULE = createRequire(import.meta.url).resolve('better-sqlite3');

// Five worker threads in turn, each leaving 20,000 pragma statements as garbage: with an affected
// build the first one aborts every time; each pragma is a statement prepared and dropped.
const SCRIPT = `
const { Worker } = require('node:worker_threads');
const work = 'const Database = require(' + ${JSON.stringify(JSON.stringify(MODULE))} + ');'
  + 'const db = new Database(":memory:");'
  + 'for (let i = 0; i < 20000; i++) db.pragma("busy_timeout = 0");';
let started = 0;
const next = () => (++started > 5 ? console.log('survived') : new Worker(work, { eval: true }).once('exit', next));
next();
`;

describe('the native SQLite module', () => {
  it('survives worker threads that end with its statements left for the garbage collector', () => {
    const run = spawnSync(process.execPath, ['-e', SCRIPT], { encoding: 'utf8', timeout: 25_000 });
    const hint = `better-sqlite3 aborted under Node ${process.version}; if its build used Node 24.19+ headers, rebuild it against 24.18.1's (npm_config_nodedir)`;
    expect({ status: run.status, signal: run.signal, stderr: run.stderr, stdout: run.stdout }, hint).toEqual({
      status: 0,
      signal: null,
      stderr: '',
      stdout: 'survived\n',
    });
  });
});
