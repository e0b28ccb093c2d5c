/**
 * Schemas built on first use. Building the contract's zod schemas took a good
 * part of a stdio server's start-up, which needs none of them: tools/list
 * answers from JSON Schemas made when the bundle is built
 * (src/mcp/listed-schemas.ts), and a request's schema is built when the first
 * such request comes.
 */

/**
 * Stands in for the schema `build` makes, building it on the first read of any
 * of its properties; it has the schema's type, so code uses it as the schema.
 * zod keeps a schema's metadata (.describe(), .meta()) by object: give the
 * stand-in's schema metadata only when it is used whole (as a tool's
 * parameters), not as a part of other schemas, where zod meets the stand-in.
 */
export function lazySchema<T extends object>(build: () => T): T {
  let built: T | undefined;
  const schema = (): T => (built ??= build());
  return new Proxy({} as T, {
    get: (_, key) => Reflect.get(schema(), key),
    set: (_, key, value) => Reflect.set(schema(), key, value),
    has: (_, key) => Reflect.has(schema(), key),
    ownKeys: () => Reflect.ownKeys(schema()),
    // A proxy may report only configurable properties its (empty) target lacks.
    getOwnPropertyDescriptor: (_, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(schema(), key);
      return descriptor && { ...descriptor, configurable: true };
    },
    getPrototypeOf: () => Reflect.getPrototypeOf(schema()),
  });
}
