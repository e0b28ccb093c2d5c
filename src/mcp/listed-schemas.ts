/**
 * The JSON Schemas `tools/list` shows, converted from the tools' zod schemas
 * when the bundle is built instead of on a client's first `tools/list`: that
 * conversion took 15–20 ms of a stdio client's start-up. scripts/bundle.js
 * makes the table with `toolSchemaTable` and hands it to the bundle as
 * GURU_LISTED_TOOL_SCHEMAS; run from the sources or tsc's output there is no
 * table and the SDK converts as usual. A tool the table has is registered with
 * stand-ins of its schemas that read them on its first call only, so that a
 * stdio server answers tools/list without building a schema.
 */
import type { McpServer, StandardSchemaWithJSON } from '@modelcontextprotocol/server';

/** The conversion the SDK asks a schema for (its JSON_SCHEMA_CONVERSION_TARGET); any other is left to the schema. */
const TARGET = 'draft-2020-12';

type JsonSchema = Record<string, unknown>;
type SchemaUse = 'input' | 'output';

/** Per tool name, its parameters' (`input`) and result's (`output`) JSON Schema, as `~standard.jsonSchema` gives them for TARGET. */
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

/** The stand-ins made so far, per use: every connection builds a server over the same schemas. */
const standIns: Record<SchemaUse, WeakMap<StandardSchemaWithJSON, StandardSchemaWithJSON>> = { input: new WeakMap(), output: new WeakMap() };

/**
 * A stand-in for `schema` that answers a TARGET conversion for `use` with a copy of `converted` (the
 * SDK may add to what it gets) and leaves the rest, validation first, to `schema`, which it reads
 * only then: a lazy schema (src/core/lazy-schema.ts) is built when the tool is first called.
 */
function listedAs(schema: StandardSchemaWithJSON, use: SchemaUse, converted: JsonSchema): StandardSchemaWithJSON {
  let standIn = standIns[use].get(schema);
  if (standIn === undefined) {
    const own = () => schema['~standard'];
    const convert = (asked: SchemaUse, options: StandardJSONSchemaOptions) =>
      asked === use && options.target === TARGET ? structuredClone(converted) : own().jsonSchema[asked](options);
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
    standIns[use].set(schema, standIn);
  }
  return standIn;
}

/**
 * From here on, tools registered on `server` list the JSON Schemas of `table`
 * (the bundle's, by default) where it has their name; the rest are converted
 * by the SDK. Call it on a new server, before any tool is registered.
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
      ...(input !== undefined && converted?.input !== undefined && { inputSchema: listedAs(input, 'input', converted.input) }),
      ...(output !== undefined && converted?.output !== undefined && { outputSchema: listedAs(output, 'output', converted.output) }),
    };
    return (register as (...args: unknown[]) => unknown)(name, listed, callback);
  }) as typeof server.registerTool;
}

/** The JSON Schemas of the tools registered on `server` since `listSchemasFrom`, converted now: the table the bundle carries. */
export function toolSchemaTable(server: McpServer): ToolSchemaTable {
  const table: ToolSchemaTable = {};
  for (const [name, { input, output }] of registered.get(server) ?? []) {
    table[name] = {
      ...(input && { input: input['~standard'].jsonSchema.input({ target: TARGET }) as JsonSchema }),
      ...(output && { output: output['~standard'].jsonSchema.output({ target: TARGET }) as JsonSchema }),
    };
  }
  return table;
}
