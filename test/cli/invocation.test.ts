/**
 * Hints name the command as it was run: `guru-mcp` only from the PATH, `npx guru-mcp` from a
 * project's node_modules, else the bin or script itself. The printed follow-up works as printed.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandLine, stdioEntry } from '../../src/cli/invocation.js';
import { program } from '../../src/cli/program.js';
import { defaultDataDir, loadConfig } from '../../src/config.js';
import { ROOT, cleanEnv, runCli } from './run-cli.js';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'guru-cli-invocation-'));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A directory with an executable `guru-mcp` in it. */
function binDir(name: string): string {
  const bin = join(dir, name);
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'guru-mcp'), '#!/bin/sh\n');
  chmodSync(join(bin, 'guru-mcp'), 0o755);
  return bin;
}

describe('the program hints name', () => {
  it('is node and the script, relative inside the working directory, absolute outside it', () => {
    expect(program({ argv: ['node', join(ROOT, 'dist/bin/guru-mcp.js')], env: {}, cwd: ROOT })).toBe('node dist/bin/guru-mcp.js');
    expect(program({ argv: ['node', 'dist/bin/guru-mcp.js'], env: {}, cwd: ROOT })).toBe('node dist/bin/guru-mcp.js');
    expect(program({ argv: ['node', join(ROOT, 'dist/bin/guru-mcp.js')], env: {}, cwd: dir })).toBe(`node ${join(ROOT, 'dist/bin/guru-mcp.js')}`);
    expect(program({ argv: ['node', '/opt/my tools/guru-mcp.js'], env: {}, cwd: '/home/ada' })).toBe("node '/opt/my tools/guru-mcp.js'");
  });

  it('is npx guru-mcp for a bin that npm ran from node_modules', () => {
    expect(program({ argv: ['node', '/home/ada/app/node_modules/.bin/guru-mcp'], env: {}, cwd: '/home/ada/app' })).toBe('npx guru-mcp');
    expect(program({ argv: ['node', '/home/ada/.npm/_npx/1a2b/node_modules/.bin/guru-mcp'], env: {}, cwd: '/tmp' })).toBe('npx guru-mcp');
    // On Windows npm's shims run the script itself.
    const script = '/home/ada/app/node_modules/guru-mcp/dist/bin/guru-mcp.js';
    expect(program({ argv: ['node', script], env: { npm_command: 'exec' }, cwd: '/home/ada/app' })).toBe('npx guru-mcp');
    expect(program({ argv: ['node', script], env: { npm_command: 'test' }, cwd: '/home/ada/app' })).toBe('node node_modules/guru-mcp/dist/bin/guru-mcp.js');
  });

  it('is guru-mcp only when that is the first guru-mcp on the PATH, else the bin as run', () => {
    const linked = binDir('linked');
    const other = binDir('other');
    const bin = join(linked, 'guru-mcp');
    expect(program({ argv: ['node', bin], env: { PATH: [linked, '/usr/bin'].join(delimiter) }, cwd: '/home/ada' })).toBe('guru-mcp');
    expect(program({ argv: ['node', bin], env: { PATH: [other, linked].join(delimiter) }, cwd: '/home/ada' })).toBe(bin);
    expect(program({ argv: ['node', bin], env: { PATH: '/usr/bin' }, cwd: '/home/ada' })).toBe(bin);
    expect(program({ argv: ['node', bin], env: {}, cwd: linked })).toBe('./guru-mcp');
  });

  it('adds the data directory when it is not the default, in hints and in the client entry', () => {
    const config = loadConfig({ env: {}, flags: { dataDir: join(dir, 'data') } });
    const invocation = { argv: ['node', join(ROOT, 'dist/bin/guru-mcp.js')], env: {}, cwd: ROOT };
    expect(commandLine(config, 'sources docs', invocation)).toBe(`node dist/bin/guru-mcp.js sources docs --data-dir ${join(dir, 'data')}`);
    expect(stdioEntry(config, 'docs', invocation)).toEqual({
      command: 'node',
      args: [join(ROOT, 'dist/bin/guru-mcp.js'), 'stdio'],
      env: { GURU_DEFAULT_GURU: 'docs', GURU_DATA_DIR: join(dir, 'data') },
    });
    const linked = binDir('entry');
    const onPath = { argv: ['node', join(linked, 'guru-mcp')], env: { PATH: linked }, cwd: '/home/ada' };
    expect(stdioEntry(config, 'docs', onPath).command).toBe('guru-mcp');
  });

  it('makes the client entry `npx -y guru-mcp stdio` when npx ran it, not a path into npx\'s cache', () => {
    const config = loadConfig({ env: {}, flags: { dataDir: defaultDataDir() } });
    const viaNpx = { argv: ['node', '/home/ada/.npm/_npx/1a2b/node_modules/.bin/guru-mcp', 'guru', 'create', 'docs'], env: {}, cwd: '/tmp' };
    expect(stdioEntry(config, 'docs', viaNpx)).toEqual({ command: 'npx', args: ['-y', 'guru-mcp', 'stdio'], env: { GURU_DEFAULT_GURU: 'docs' } });
  });
});

describe('hints run as printed', () => {
  /** Runs the built command from the project directory as `node dist/bin/guru-mcp.js`, as after a clone. */
  const run = (args: string[], input = '') => runCli(args, { input, asCloned: true });

  it('prints a follow-up and a vote that a shell without guru-mcp on its PATH runs', async () => {
    const dataDir = join(dir, 'hints');
    expect((await run(['guru', 'create', 'docs', '--data-dir', dataDir])).code).toBe(0);
    const empty = await run(['sources', 'docs', '--data-dir', dataDir]);
    expect(empty.stdout).toBe(`No sources yet. Add some with: node dist/bin/guru-mcp.js add docs FILE|URL... --data-dir ${dataDir}\n`);
    const added = await run(['add', 'docs', '--name', 'lamp.md', '--data-dir', dataDir], '# The lamp\n\nThe keeper polishes the lamp lens every morning with a soft cloth.\n');
    expect(added.code, added.stderr).toBe(0);

    const asked = await run(['ask', 'docs', 'What does the keeper polish every morning?', '--data-dir', dataDir]);
    expect(asked.code, asked.stderr).toBe(0);
    const followUp = /^Follow up: (.+)$/m.exec(asked.stdout)![1]!;
    const vote = /^Vote: (.+)$/m.exec(asked.stdout)![1]!;
    expect(followUp).toMatch(/^node dist\/bin\/guru-mcp\.js ask docs --session \S+ <question\.\.\.> --data-dir /);
    expect(vote).toMatch(/^node dist\/bin\/guru-mcp\.js vote docs \S+ up\|down --data-dir /);

    // The shell the person types in: node on the PATH, guru-mcp not.
    const path = [dirname(process.execPath), '/usr/bin', '/bin'].join(delimiter);
    expect(spawnSync('sh', ['-c', 'command -v guru-mcp'], { env: { PATH: path } }).status).not.toBe(0);
    const shell = (command: string) => spawnSync('sh', ['-c', command], { cwd: ROOT, env: { ...cleanEnv(), PATH: path }, encoding: 'utf8' });
    const voted = shell(vote.replace('up|down', 'up'));
    expect(voted.status, voted.stderr).toBe(0);
    const followed = shell(followUp.replace('<question...>', "'How often is the lens polished?'"));
    expect(followed.status, followed.stderr).toBe(0);
    expect(followed.stdout).toContain(/^Session: (\S+)$/m.exec(asked.stdout)![1]!);

    const usage = await run(['ask', '--data-dir', dataDir]);
    expect(usage.stderr).toContain("Run 'node dist/bin/guru-mcp.js ask --help' for usage.");
  });
});
