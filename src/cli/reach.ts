// fetch for the CLI's calls to a server. Node reports a refused connection, an unknown host or a bad URL
// as a bare "fetch failed", which tells an operator neither where the CLI looked nor how to change it.
export async function reach(url: string, init: RequestInit, howToPoint: string): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    const why = cause?.code ?? cause?.message ?? (err as Error).message;
    throw new Error(
      `cannot reach the Mailgrove server at ${originOf(url)} (${why}). Is it running? To use another server, ${howToPoint}.`,
    );
  }
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

export const POINT_ADMIN = 'set MAILGROVE_URL (e.g. MAILGROVE_URL=http://localhost:3000) and MAILGROVE_ADMIN_TOKEN';
export const POINT_IMPORT = 'pass --url http://host:port or set MAILGROVE_URL';
