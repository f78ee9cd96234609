/** Every route of a built app, read from `printRoutes()`, so that routes added later are covered automatically. */
import type { FastifyInstance } from 'fastify';

export interface RouteEntry { method: string; path: string }

export function listRoutes(app: FastifyInstance): RouteEntry[] {
  const stack: string[] = [];
  const routes: RouteEntry[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^((?:[│ ] {3})*)[├└]── (.*?)(?: \(([^)]*)\))?$/.exec(line);
    if (!match) continue;
    const depth = [...match[1]!].length / 4;
    const path = (depth === 0 ? '' : stack[depth - 1]!) + match[2]!;
    stack[depth] = path;
    stack.length = depth + 1;
    for (const method of (match[3] ?? '').split(',').map((m) => m.trim()).filter(Boolean)) routes.push({ method, path });
  }
  return routes;
}

/** `/api/x/:id` → `/api/x/{id}`, as OpenAPI writes paths. */
export function toOpenApiPath(path: string): string {
  return path.replace(/:(\w+)/g, '{$1}');
}
