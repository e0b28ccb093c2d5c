/**
 * Logging to stderr, one line per event. stdout belongs to the MCP protocol in
 * stdio mode, so nothing here ever writes there. Callers pass facts, never
 * secrets: request paths and statuses, not headers or bodies.
 */
export type LogLevel = 'error' | 'warn' | 'info' | 'debug';

const RANK: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

export interface Logger {
  error(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  debug(message: string, fields?: Record<string, unknown>): void;
}

function render(fields: Record<string, unknown> | undefined): string {
  if (!fields) return '';
  const parts = Object.entries(fields)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key}=${typeof value === 'string' ? JSON.stringify(value) : String(value)}`);
  return parts.length > 0 ? ` ${parts.join(' ')}` : '';
}

export function createLogger(level: LogLevel, write: (line: string) => void = (line) => process.stderr.write(line)): Logger {
  const emit = (at: LogLevel) => (message: string, fields?: Record<string, unknown>) => {
    if (RANK[at] > RANK[level]) return;
    write(`${new Date().toISOString()} ${at} ${message}${render(fields)}\n`);
  };
  return { error: emit('error'), warn: emit('warn'), info: emit('info'), debug: emit('debug') };
}

export const silentLogger: Logger = { error() {}, warn() {}, info() {}, debug() {} };

/** An error as one log field: `TypeError: x is not a function`; never a stack, never a request body. */
export function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
