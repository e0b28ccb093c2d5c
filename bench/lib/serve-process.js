// A `guru-mcp serve` of a built bundle in a child process, on a port of its own on 127.0.0.1, and
// the CPU time it has used: for the parts that measure a running server from outside.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import process from 'node:process';

/**
 * Starts `node [nodeFlags] CLI serve --port 0` with `env`; resolves once it listens. `detached` starts it in a
 * session of its own, as a service has (on Linux, its own autogroup: the scheduler shares the CPU
 * between sessions first, so a client's work and the server's do not share one share).
 */
export async function startServe(cli, env, { detached = false, nodeFlags = [] } = {}) {
  const child = spawn(process.execPath, [...nodeFlags, cli, 'serve', '--port', '0'], { env, stdio: ['ignore', 'ignore', 'pipe'], detached });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  const origin = await new Promise((done, fail) => {
    child.stderr.on('data', (text) => {
      stderr += text;
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr);
      if (match) done(match[1]);
    });
    child.once('exit', (code) => fail(new Error(`serve exited with code ${code}: ${stderr}`)));
  });
  return {
    origin,
    pid: child.pid,
    stderr: () => stderr,
    stop: async () => {
      // A process killed by a signal (the stores part's kill -9) has no exit code, only a signal.
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Clock ticks per second of /proc's CPU times (USER_HZ): 100 on every Linux Node runs on. */
const TICKS_PER_SECOND = 100;

/** CPU seconds (user and system) of one /proc stat file; its command name may hold spaces and parentheses. */
function statCpuSeconds(file) {
  const fields = readFileSync(file, 'utf8').split(') ').at(-1).split(' ');
  // Fields 14 and 15 of the file (utime, stime) are the 12th and 13th after the command name.
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/**
 * CPU seconds the server has used so far: all its threads, and its main thread (the one that serves
 * requests) alone. Unlike wall-clock time, these hardly change with other work on the machine.
 */
export function cpuSeconds(pid) {
  return { process: statCpuSeconds(`/proc/${pid}/stat`), main: statCpuSeconds(`/proc/${pid}/task/${pid}/stat`) };
}
