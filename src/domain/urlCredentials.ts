// Credentials in a URL someone gives us: webhook targets and form redirects refuse them in any form.

/**
 * Whether the URL as written has a userinfo part, even an empty one. `https://:@host/` parses to an
 * empty username and password, so URL's own fields cannot tell; the text before the host can. The
 * authority is what follows the scheme and its slashes (in http(s) the URL parser takes `\` as `/`) up to
 * the path, query or fragment; the parser drops tabs and newlines anywhere and leading blanks and control
 * characters, so they are dropped here too before looking for an `@`.
 */
export function hasCredentials(raw: string): boolean {
  const text = raw.replace(/[\t\n\r]/g, '').replace(/^[\u0000-\u0020]+/, '');
  const authority = /^[a-z][a-z0-9+.-]*:[/\\]*([^/\\?#]*)/i.exec(text)?.[1] ?? '';
  return authority.includes('@');
}
