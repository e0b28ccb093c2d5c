/** `guru-mcp serve [--host HOST] [--port PORT]` */
import { openRateLimiter, type OpenedBackend } from '../../compose.js';
import { CommandFailure } from '../failures.js';
import { sayHowToStart } from '../first-run.js';
import { waitForStopSignal } from '../signals.js';
import type { CommandContext } from '../spec.js';

function listenFailure(error: unknown, host: string, port: number): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') return new CommandFailure(`${host}:${port} is already in use`, 'Pick another port with --port (0 picks a free one).');
  if (code === 'EACCES') return new CommandFailure(`not allowed to listen on ${host}:${port}`, 'Ports below 1024 need privileges; pick another with --port.');
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') return new CommandFailure(`cannot listen on host ${host}`, 'Use an address of this machine with --host.');
  return error;
}

export async function run(context: CommandContext): Promise<number> {
  const { config, logger, terminal } = context;
  const { host, port, publicUrl } = config;
  const [{ startHttpServer }, { createMcpHttpHandler }, { isLoopbackHost }, { createWebInterface }, { BodyBudget, MiB }] = await Promise.all([
    import('../../http/server.js'),
    import('../../mcp/http.js'),
    import('../../http/host.js'),
    import('../../web/interface.js'),
    import('../../http/body.js'),
  ]);

  const stopped = waitForStopSignal();
  const backend: OpenedBackend = await context.openBackend({ processing: true });
  const limiter = await openRateLimiter(config, logger);
  // Off loopback, anyone on the network can reach /mcp: it then needs a guru's API key as bearer token.
  // On loopback every local user can, which GURU_MCP_REQUIRE_KEY=1 closes too.
  // One rate limit for REST, /mcp's tool calls and the web interface; one budget of large bodies
  // read at once for REST, the web interface's API and /mcp.
  const bodies = new BodyBudget(config.bodyBudgetMb * MiB);
  const mcp = createMcpHttpHandler({
    backend,
    logger,
    limiter,
    requireBearer: config.mcpRequireKey || !isLoopbackHost(host),
    bodies,
    ...(config.tools === undefined ? {} : { tools: config.tools }),
  });
  const web = createWebInterface({ backend, logger, limiter, host, requireKey: config.mcpRequireKey, bodies });
  let server: Awaited<ReturnType<typeof startHttpServer>>;
  try {
    server = await startHttpServer({ backend, logger, host, port, limiter, mcp, web, bodies, ...(publicUrl === undefined ? {} : { publicUrl }) });
  } catch (error) {
    await mcp.close();
    await limiter.close();
    await backend.close();
    throw listenFailure(error, host, port);
  }
  // Before the "listening on" line, which tells whoever started the server that it is ready.
  await sayHowToStart(backend, config, terminal.stderr);
  terminal.stderr.write(`listening on ${server.url}\n`);

  const signal = await stopped;
  logger.info('shutting down', { signal });
  await server.close();
  await limiter.close();
  await backend.close();
  return 0;
}
