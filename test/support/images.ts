// Tiny image files for upload tests, written byte by byte: a real 1×1 PNG, a PNG whose header claims
// 50,000×50,000 pixels (a decompression bomb's signature), a JPEG header, a GIF and a WebP.
const ONE_PIXEL_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

export const png = (): Buffer => Buffer.from(ONE_PIXEL_PNG, 'base64');

/** The 1×1 PNG with its IHDR width and height rewritten. */
export function pngClaiming(width: number, height: number): Buffer {
  const b = png();
  b.writeUInt32BE(width, 16);
  b.writeUInt32BE(height, 20);
  return b;
}

/** A JPEG's start and one SOF0 frame header: 32×16, enough for anything that reads dimensions. */
export function jpeg(): Buffer {
  return Buffer.from([
    0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00,
    0x00, 0xff, 0xc0, 0x00, 0x11, 0x08, 0x00, 0x10, 0x00, 0x20, 0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11,
    0x01, 0xff, 0xd9,
  ]);
}

export function gif(): Buffer {
  return Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
}

export const svg = (): Buffer =>
  Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>');

export const htmlPretendingToBePng = (): Buffer => Buffer.from('<html><script>alert(1)</script></html>');
