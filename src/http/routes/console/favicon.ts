import { pngFile } from '../../../domain/loyalty/assets/png.ts';
import type { TypedApp } from '../../route-context.ts';

// The site icon, drawn here rather than kept as a file: a blue punch card with two holes, the console's
// mark. /favicon.svg for the pages that link it (the console, /docs), /favicon.ico (a 32×32 PNG inside
// an ICO) for browsers that ask for that path on their own, e.g. on /openapi.json.

const BLUE = [0x22, 0x8b, 0xe6, 0xff];
const WHITE = [0xff, 0xff, 0xff, 0xff];
const CLEAR = [0, 0, 0, 0];
const HOLES = [
  [5, 8],
  [11, 8],
];

export const FAVICON_SVG =
  "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'><rect width='16' height='16' rx='3' fill='#228be6'/>" +
  HOLES.map(([cx, cy]) => `<circle cx='${cx}' cy='${cy}' r='2' fill='white'/>`).join('') +
  '</svg>';

/** The colour of a point of the 16×16 drawing above. */
function colourAt(x: number, y: number): number[] {
  const radius = 3;
  const cornerX = x < radius ? radius : x > 16 - radius ? 16 - radius : x;
  const cornerY = y < radius ? radius : y > 16 - radius ? 16 - radius : y;
  if ((x - cornerX) ** 2 + (y - cornerY) ** 2 > radius ** 2) return CLEAR;
  return HOLES.some(([cx = 0, cy = 0]) => (x - cx) ** 2 + (y - cy) ** 2 <= 4) ? WHITE : BLUE;
}

/** A size×size RGBA PNG of the drawing, one sample at each pixel's centre. */
function iconPng(size: number): Buffer {
  const rows: number[] = [];
  for (let py = 0; py < size; py++) {
    rows.push(0); // filter: none
    for (let px = 0; px < size; px++) rows.push(...colourAt(((px + 0.5) * 16) / size, ((py + 0.5) * 16) / size));
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bits per channel
  header[9] = 6; // RGBA
  return pngFile(header, Buffer.from(rows));
}

/** An ICO holding one PNG image (every browser since 2008 reads PNG inside ICO). */
export function faviconIco(size = 32): Buffer {
  const png = iconPng(size);
  const head = Buffer.alloc(6 + 16);
  head.writeUInt16LE(0, 0); // reserved
  head.writeUInt16LE(1, 2); // type: icon
  head.writeUInt16LE(1, 4); // one image
  head[6] = size; // width
  head[7] = size; // height
  head.writeUInt16LE(1, 10); // colour planes
  head.writeUInt16LE(32, 12); // bits per pixel
  head.writeUInt32LE(png.length, 14);
  head.writeUInt32LE(head.length, 18); // where the image starts
  return Buffer.concat([head, png]);
}

export function registerFavicon(app: TypedApp): void {
  const options = { config: { auth: 'public' as const }, schema: { hide: true }, compress: false as const };
  const ico = faviconIco();
  const cache = 'public, max-age=86400';
  app.get('/favicon.svg', options, async (_request, reply) => reply.type('image/svg+xml').header('Cache-Control', cache).send(FAVICON_SVG));
  app.get('/favicon.ico', options, async (_request, reply) => reply.type('image/x-icon').header('Cache-Control', cache).send(ico));
}
