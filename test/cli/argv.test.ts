import { describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../src/cli/argv.js';
import { UsageError } from '../../src/cli/failures.js';

function run(argv: string[]) {
  const line = parseCommandLine(argv);
  if (line.kind !== 'run') throw new Error(`expected a command to run, got ${line.kind}`);
  return { name: line.command.name, args: line.args, values: line.values };
}

/** The error parsing `argv` throws. */
function attempt(argv: string[]): unknown {
  try {
    parseCommandLine(argv);
  } catch (error) {
    return error;
  }
  throw new Error('no error');
}

describe('parseCommandLine', () => {
  it('runs stdio without a command, also with only common options', () => {
    expect(run([]).name).toBe('stdio');
    expect(run(['--data-dir', '/tmp/x'])).toMatchObject({ name: 'stdio', values: { 'data-dir': '/tmp/x' } });
  });

  it('finds command words after options and option values', () => {
    expect(run(['--data-dir', 'serve', 'guru', 'list'])).toMatchObject({ name: 'guru list', values: { 'data-dir': 'serve' } });
    expect(run(['--json', 'guru', '--data-dir=/d', 'create', 'docs'])).toMatchObject({
      name: 'guru create',
      args: ['docs'],
      values: { json: true, 'data-dir': '/d' },
    });
  });

  it('joins nothing itself: the words of a question stay separate positionals', () => {
    expect(run(['ask', 'docs', 'how', 'do', 'I', '--session', 's1'])).toMatchObject({
      name: 'ask',
      args: ['docs', 'how', 'do', 'I'],
      values: { session: 's1' },
    });
  });

  it('collects repeated labels', () => {
    expect(run(['search', 'docs', 'q', '--label', 'a', '--label', 'b']).values.label).toEqual(['a', 'b']);
  });

  it('takes a question that starts with a dash after --', () => {
    expect(run(['ask', 'docs', '--', '-v is what?']).args).toEqual(['docs', '-v is what?']);
  });

  it('answers help and version', () => {
    expect(parseCommandLine(['--version'])).toEqual({ kind: 'version' });
    expect(parseCommandLine(['help'])).toEqual({ kind: 'help', topic: { kind: 'overview' } });
    expect(parseCommandLine(['key', '--help'])).toEqual({ kind: 'help', topic: { kind: 'group', group: 'key' } });
    const help = parseCommandLine(['add', 'docs', '--help']);
    expect(help.kind === 'help' && help.topic.kind === 'command' && help.topic.command.name).toBe('add');
  });

  it('throws a UsageError naming the command whose help explains it', () => {
    const unknownOption = attempt(['add', 'docs', '--nmae', 'x']);
    expect(unknownOption).toBeInstanceOf(UsageError);
    expect(unknownOption).toMatchObject({ message: 'unknown option --nmae', command: 'add' });
    expect(attempt(['serve', 'now'])).toMatchObject({ message: 'unexpected argument "now"', command: 'serve' });
    expect(attempt(['--version', 'x'])).toMatchObject({ message: 'unknown command "x"', command: undefined });
    expect(attempt(['stdio', '--version'])).toMatchObject({ message: 'unknown option --version', command: 'stdio' });
  });

  it('refuses the common options a command does not take, and takes the ones it does', () => {
    expect(attempt(['migrate', '--backend', 'remote'])).toMatchObject({ message: 'option --backend does not apply to migrate', command: 'migrate' });
    expect(attempt(['--llm-model=llama3.2', 'migrate'])).toMatchObject({ message: 'option --llm-model does not apply to migrate', command: 'migrate' });
    expect(attempt(['migrate', '--llm-images'])).toMatchObject({ message: 'option --llm-images does not apply to migrate', command: 'migrate' });
    expect(run(['migrate', '--data-dir', '/d', '--database-url', 'postgres://h/db', '--config', 'c.json', '--log-level', 'debug', '--json'])).toMatchObject({
      name: 'migrate',
      values: { 'data-dir': '/d', 'database-url': 'postgres://h/db', config: 'c.json', 'log-level': 'debug', json: true },
    });
    expect(run(['guru', 'list', '--backend', 'remote']).values.backend).toBe('remote');
  });
});
