/**
 * The JSON Schemas `tools/list` shows, converted from the tools' zod schemas
 * when the bundle is built instead of on a client's first `tools/list`: that
 * conversion took 15–20 ms of a stdio client's start-up. scripts/bundle.js
 * makes the table with `toolSchemaTable` and hands it to the bundle as
 * GURU_LISTED_TOOL_SCHEMAS; run from the sources or tsc's output there is no
 * table and the schemas are converted when listed. Either way tools/list shows
 * them shorter than the SDK's conversion (`listedJsonSchema`). A tool the table
 * has is registered with stand-ins of its schemas that read them on its first
 * call only, so that a stdio server answers tools/list without building a schema.
 */
import type { McpServer, StandardSchemaWithJSON } from '@modelcontextprotocol/server';

/** The conversion the SDK asks a schema for (its JSON_SCHEMA_CONVERSION_TARGET); any other is left to the schema. */
const TARGET = 'draft-2020-12';

type JsonSchema = Record<string, unknown>;
type SchemaUse = 'input' | 'output';

/** Per tool name, its parameters' (`input`) and result's (`output`) JSON Schema as listed: `~standard.jsonSchema`'s for TARGET, made shorter by `listedJsonSchema`. */
export type ToolSchemaTable = Record<string, Partial<Record<SchemaUse, JsonSchema>>>;

/** The table the bundle was built with, as JSON text (esbuild's `define`). */
declare const GURU_LISTED_TOOL_SCHEMAS: string | undefined;

const builtTable: string | undefined = typeof GURU_LISTED_TOOL_SCHEMAS === 'string' ? GURU_LISTED_TOOL_SCHEMAS : undefined;
let parsedTable: ToolSchemaTable | undefined;

/** The bundle's table, read on first use (parsing JSON text is cheaper than evaluating it as code). */
function bundledTable(): ToolSchemaTable | undefined {
  if (builtTable === undefined) return undefined;
  parsedTable ??= JSON.parse(builtTable) as ToolSchemaTable;
  return parsedTable;
}

type ToolConfig = { inputSchema?: unknown; outputSchema?: unknown };
type StandardJSONSchemaOptions = Parameters<StandardSchemaWithJSON['~standard']['jsonSchema']['input']>[0];
interface ToolSchemas {
  readonly input?: StandardSchemaWithJSON;
  readonly output?: StandardSchemaWithJSON;
}

/** The schemas of each tool registered on a server through `listSchemasFrom`, for `toolSchemaTable`. */
const registered = new WeakMap<McpServer, Map<string, ToolSchemas>>();

/** The stand-ins made so far, per use, from a table's schema (`table`) or converting their own (`own`): every connection builds a server over the same schemas. */
const standIns = {
  table: { input: new WeakMap(), output: new WeakMap() },
  own: { input: new WeakMap(), output: new WeakMap() },
} satisfies Record<'table' | 'own', Record<SchemaUse, WeakMap<StandardSchemaWithJSON, StandardSchemaWithJSON>>>;

/** What zod writes for `.int()` without bounds of its own: the safe-integer range, which says nothing to a client. */
const SAFE_INTEGER_BOUNDS = { minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER } as const;

/**
 * A JSON Schema as tools/list shows it, shorter than the conversion: no `$schema` (2020-12 is
 * MCP's default dialect), no safe-integer bounds (zod's, not ours), anywhere. An input schema
 * keeps everything else: its lengths, counts and patterns are what the server validates.
 * An output schema keeps its top level only: each field's name and JSON type. The text
 * content says what the values mean; clients that validate structuredContent still check
 * the fields' types, and the server validates the whole result against the tool's own
 * schema before sending it.
 */
export function listedJsonSchema(use: SchemaUse, converted: JsonSchema): JsonSchema {
  return use === 'input' ? withoutNoise(converted) as JsonSchema : topLevelOf(converted);
}

function withoutNoise(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNoise);
  if (typeof value !== 'object' || value === null) return value;
  const kept: Record<string, unknown> = {};
  for (const [key, each] of Object.entries(value)) {
    if (key === '$schema') continue;
    if ((key === 'minimum' || key === 'maximum') && each === SAFE_INTEGER_BOUNDS[key]) continue;
    kept[key] = withoutNoise(each);
  }
  return kept;
}

function topLevelOf(schema: JsonSchema): JsonSchema {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  return { type: 'object', properties: Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, typeOf(property)])) };
}

/** `{ type }` of a property: its JSON type or types (those of each `anyOf` branch); `{}` (anything) when it has none. */
function typeOf(property: JsonSchema): JsonSchema {
  const types = new Set<string>();
  const collect = (schema: JsonSchema): boolean => {
    if (typeof schema.type === 'string') types.add(schema.type);
    else if (Array.isArray(schema.type)) for (const type of schema.type as string[]) types.add(type);
    else if (Array.isArray(schema.anyOf)) return (schema.anyOf as JsonSchema[]).every(collect);
    else return false;
    return true;
  };
  if (!collect(property) || types.size === 0) return {};
  const [single] = types;
  return { type: types.size === 1 ? single : [...types] };
}

/**
 * A stand-in for `schema` that answers a TARGET conversion for `use` with the listed schema: a copy
 * of `fromTable` (the SDK may add to what it gets), or else its own conversion made shorter by
 * `listedJsonSchema`. The rest, validation first, goes to `schema`, which it reads only then:
 * a lazy schema (src/core/lazy-schema.ts) is built when the tool is first called.
 */
function listedAs(schema: StandardSchemaWithJSON, use: SchemaUse, fromTable: JsonSchema | undefined): StandardSchemaWithJSON {
  const made = standIns[fromTable === undefined ? 'own' : 'table'][use];
  let standIn = made.get(schema);
  if (standIn === undefined) {
    const own = () => schema['~standard'];
    const convert = (asked: SchemaUse, options: StandardJSONSchemaOptions) => {
      if (asked !== use || options.target !== TARGET) return own().jsonSchema[asked](options);
      return fromTable === undefined ? listedJsonSchema(use, own().jsonSchema[use](options)) : structuredClone(fromTable);
    };
    standIn = {
      '~standard': {
        version: 1,
        get vendor() {
          return own().vendor;
        },
        validate: (value, options) => own().validate(value, options),
        jsonSchema: { input: (options) => convert('input', options), output: (options) => convert('output', options) },
      },
    };
    made.set(schema, standIn);
  }
  return standIn;
}

/**
 * From here on, tools registered on `server` list the JSON Schemas of `table`
 * (the bundle's, by default) where it has their name; the rest are converted
 * when listed. Both are the shorter schemas of `listedJsonSchema`. Call it on a
 * new server, before any tool is registered.
 */
export function listSchemasFrom(server: McpServer, table: ToolSchemaTable | undefined = bundledTable()): void {
  const tools = new Map<string, ToolSchemas>();
  registered.set(server, tools);
  const register = server.registerTool.bind(server);
  server.registerTool = ((name: string, config: ToolConfig, callback: unknown) => {
    const input = config.inputSchema as StandardSchemaWithJSON | undefined;
    const output = config.outputSchema as StandardSchemaWithJSON | undefined;
    tools.set(name, { ...(input && { input }), ...(output && { output }) });
    const converted = table?.[name];
    const listed: ToolConfig = {
      ...config,
      ...(input !== undefined && { inputSchema: listedAs(input, 'input', converted?.input) }),
      ...(output !== undefined && { outputSchema: listedAs(output, 'output', converted?.output) }),
    };
    return (register as (...args: unknown[]) => unknown)(name, listed, callback);
  }) as typeof server.registerTool;
}

/** The JSON Schemas of the tools registered on `server` since `listSchemasFrom`, converted now: the table the bundle carries. */
export function toolSchemaTable(server: McpServer): ToolSchemaTable {
  const table: ToolSchemaTable = {};
  for (const [name, { input, output }] of registered.get(server) ?? []) {
    table[name] = {
      ...(input && { input: listedJsonSchema('input', input['~standard'].jsonSchema.input({ target: TARGET })) }),
      ...(output && { output: listedJsonSchema('output', output['~standard'].jsonSchema.output({ target: TARGET })) }),
    };
  }
  return table;
}
