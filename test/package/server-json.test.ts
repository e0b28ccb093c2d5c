/**
 * server.json, the MCP Registry entry of the npm package, against the registry's published schema
 * (../shared/schemas/server-json/2025-12-11/, beside the checkout; see its README) and against the
 * package and the settings it names.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/registry.js';
import { ENVIRONMENT } from '../../src/config.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCHEMA = join(ROOT, '..', 'shared', 'schemas', 'server-json', '2025-12-11', 'server.schema.json');

interface Input {
  readonly name?: string;
  readonly value?: string;
  readonly type?: string;
}
interface ServerJson {
  readonly $schema: string;
  readonly name: string;
  readonly version: string;
  readonly packages: ReadonlyArray<{
    readonly registryType: string;
    readonly identifier: string;
    readonly version: string;
    readonly transport: { readonly type: string; readonly url?: string };
    readonly packageArguments?: readonly Input[];
    readonly environmentVariables?: readonly Input[];
  }>;
}

const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, 'utf8')) as T;
const server = readJson<ServerJson>(join(ROOT, 'server.json'));
const pkg = readJson<{ name: string; version: string; mcpName: string }>(join(ROOT, 'package.json'));

// ajv-formats is CommonJS: under NodeNext its plugin is the default import's `default`.
const addFormats = addFormatsModule.default;

describe('server.json (MCP Registry entry)', () => {
  it('is valid against the registry schema, with the registry validator’s 255-character cap on version', () => {
    const schema = readJson<{ definitions: { ServerDetail: { properties: { version: Record<string, unknown> } } } }>(SCHEMA);
    schema.definitions.ServerDetail.properties.version.maxLength = 255;
    const ajv = new Ajv({ allErrors: true, strict: false });
    addFormats(ajv);
    const validate = ajv.compile(schema);
    expect(validate(server), ajv.errorsText(validate.errors)).toBe(true);
    expect(server.$schema).toBe('https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json');
    // The check has teeth: a description over the 100 characters the schema allows fails.
    expect(validate({ ...server, description: 'x'.repeat(101) })).toBe(false);
  });

  it('names the package as published: mcpName, version, npm identifier', () => {
    expect(server.name).toBe(pkg.mcpName);
    expect(server.version).toBe(pkg.version);
    for (const entry of server.packages) {
      expect(entry).toMatchObject({ registryType: 'npm', identifier: pkg.name, version: pkg.version });
    }
  });

  it('offers stdio and the streamable HTTP of `serve`, with commands and settings guru-mcp has', () => {
    expect(server.packages.map((entry) => entry.transport.type).sort()).toEqual(['stdio', 'streamable-http']);
    const commands = new Set(COMMANDS.map((command) => command.name));
    const settings = new Set(Object.values(ENVIRONMENT));
    for (const entry of server.packages) {
      for (const argument of entry.packageArguments ?? []) {
        expect(argument.type).toBe('positional');
        expect(commands, argument.value).toContain(argument.value);
      }
      for (const variable of entry.environmentVariables ?? []) expect(settings, variable.name).toContain(variable.name);
      // The URL's {variables} are the entry's own environment variables.
      for (const [, name] of (entry.transport.url ?? '').matchAll(/\{(\w+)\}/g)) {
        expect(entry.environmentVariables?.map((variable) => variable.name)).toContain(name);
      }
    }
    const http = server.packages.find((entry) => entry.transport.type === 'streamable-http')!;
    expect(http.packageArguments?.map((argument) => argument.value)).toEqual(['serve']);
    expect(http.transport.url).toMatch(/\/mcp$/);
  });
});
