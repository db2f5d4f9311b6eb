// Path parameters as text, for every face: Fastify fills each `:name` of a route's path with a string, so
// reading one needs no cast. A path id that must be a UUID is read by rest/envelope.ts `pathId` instead.

/** The path parameter `name`, as sent (an empty string if the route has no such parameter). */
export function pathParam(params: unknown, name: string): string {
  const value = params !== null && typeof params === 'object' ? (params as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' ? value : '';
}
