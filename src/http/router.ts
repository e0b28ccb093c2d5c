/**
 * Matching a method and path against a table of routes. Patterns are written
 * like `/:guru_slug/answer`; a trailing slash on the request path is optional,
 * and `:name` segments match any single segment, even an empty one.
 */

export interface RoutePattern {
  readonly method: string;
  readonly path: string;
}

export type RouteLookup<R> =
  | { readonly kind: 'found'; readonly route: R; readonly params: Readonly<Record<string, string>> }
  | { readonly kind: 'method_not_allowed'; readonly allow: readonly string[] }
  | { readonly kind: 'not_found' };

type Segment = { readonly literal: string } | { readonly param: string };

function splitPath(path: string): string[] {
  const trimmed = path.replace(/^\//, '').replace(/\/$/, '');
  return trimmed.split('/');
}

function compile(path: string): Segment[] {
  return splitPath(path).map((part) => (part.startsWith(':') ? { param: part.slice(1) } : { literal: part }));
}

function decodeSegments(path: string): string[] | undefined {
  try {
    return splitPath(path).map((part) => decodeURIComponent(part));
  } catch {
    return undefined;
  }
}

export function createRouter<R extends RoutePattern>(routes: readonly R[]): (method: string, path: string) => RouteLookup<R> {
  const compiled = routes.map((route) => ({ route, segments: compile(route.path) }));

  return (method, path) => {
    const parts = decodeSegments(path);
    if (parts === undefined) return { kind: 'not_found' };
    const allow: string[] = [];
    for (const { route, segments } of compiled) {
      if (segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      const matches = segments.every((segment, index) => {
        const part = parts[index] as string;
        if ('literal' in segment) return segment.literal === part;
        params[segment.param] = part;
        return true;
      });
      if (!matches) continue;
      if (route.method === method) return { kind: 'found', route, params };
      allow.push(route.method);
    }
    return allow.length > 0 ? { kind: 'method_not_allowed', allow } : { kind: 'not_found' };
  };
}
