// What the image library accepts: the four web image types, judged by their bytes, with dimensions
// read from the file; everything else, and anything claiming absurd dimensions, is a 400 on "file".
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Validation } from '../../../src/domain/errors.ts';
import { inspect, MAX_IMAGE_BYTES, sniff } from '../../../src/domain/images/images.ts';
import { gif, htmlPretendingToBePng, jpeg, png, pngClaiming, svg } from '../../support/images.ts';

const refused = (bytes: Uint8Array, pattern: RegExp) =>
  assert.throws(
    () => inspect(bytes),
    (err: any) => err instanceof Validation && Object.keys(err.fields)[0] === 'file' && pattern.test(err.message),
  );

test('PNG, JPEG and GIF are recognised by their bytes, with their dimensions', () => {
  assert.deepEqual(inspect(png()), { content_type: 'image/png', width: 1, height: 1 });
  assert.deepEqual(inspect(jpeg()), { content_type: 'image/jpeg', width: 32, height: 16 });
  assert.deepEqual(inspect(gif()), { content_type: 'image/gif', width: 1, height: 1 });
  const webp = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBPVP8 ')]);
  assert.equal(sniff(webp), 'image/webp');
});

test('SVG, HTML named .png, empty, damaged and oversized files are refused', () => {
  refused(svg(), /Only PNG, JPEG, GIF and WebP/);
  refused(htmlPretendingToBePng(), /Only PNG, JPEG, GIF and WebP/);
  refused(Buffer.alloc(0), /empty/);
  refused(png().subarray(0, 12), /damaged/);
  refused(Buffer.concat([png(), Buffer.alloc(MAX_IMAGE_BYTES)]), /larger than 5 MB/);
});

test('a header claiming 50,000 × 50,000 pixels (a decompression bomb) is refused before any decoding', () => {
  refused(pngClaiming(50_000, 50_000), /50000×50000 pixels/);
  refused(pngClaiming(9_000, 9_000), /megapixels/);
  assert.equal(inspect(pngClaiming(1200, 800)).width, 1200);
});
