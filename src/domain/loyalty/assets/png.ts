import { deflateSync } from 'node:zlib';

// A minimal PNG writer for black-and-white pictures (QR codes and barcodes of loyalty cards): one bit per
// pixel, greyscale, no interlacing. Written here rather than pulled in as a dependency because the whole
// format we need is a signature, three chunks and a CRC.

/** A picture of `width` × `height` pixels; `dark(x, y)` tells whether a pixel is black. */
export interface Bitmap {
  width: number;
  height: number;
  dark(x: number, y: number): boolean;
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

export function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = (CRC_TABLE[(c ^ byte) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** Encodes the bitmap as a 1-bit greyscale PNG (in greyscale, bit 1 is white). */
export function encodePng(bitmap: Bitmap): Buffer {
  const { width, height } = bitmap;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) throw new Error(`bad PNG size ${width}x${height}`);
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 1; // bit depth
  header[9] = 0; // colour type: greyscale
  header[10] = 0; // compression: deflate
  header[11] = 0; // filter method 0
  header[12] = 0; // no interlace
  const rowBytes = Math.ceil(width / 8);
  const raw = Buffer.alloc((rowBytes + 1) * height);
  for (let y = 0; y < height; y++) {
    const start = y * (rowBytes + 1);
    raw[start] = 0; // filter type None for every scanline
    for (let x = 0; x < width; x++) {
      if (bitmap.dark(x, y)) continue;
      const index = start + 1 + (x >> 3);
      raw[index] = (raw[index] as number) | (0x80 >> (x & 7));
    }
    // Padding bits past the last pixel stay 0; decoders ignore them.
  }
  return pngFile(header, raw);
}

/**
 * A whole PNG file from its 13-byte IHDR and its raw scanlines (each led by its filter byte): the
 * signature and the IHDR, IDAT and IEND chunks. Shared with the site icon (src/http/routes/console/favicon.ts).
 */
export function pngFile(header: Buffer, raw: Buffer): Buffer {
  return Buffer.concat([SIGNATURE, chunk('IHDR', header), chunk('IDAT', deflateSync(raw, { level: 9 })), chunk('IEND', Buffer.alloc(0))]);
}

/** A module grid scaled by `scale` pixels per module with a light border of `quiet` modules around it. */
export function scaledBitmap(columns: number, rows: number, dark: (column: number, row: number) => boolean, scale: number, quiet: number, rowScale = scale): Bitmap {
  return {
    width: (columns + 2 * quiet) * scale,
    height: (rows + 2 * quiet) * rowScale,
    dark(x, y) {
      const column = Math.floor(x / scale) - quiet;
      const row = Math.floor(y / rowScale) - quiet;
      return column >= 0 && column < columns && row >= 0 && row < rows && dark(column, row);
    },
  };
}

/** The same picture as SVG, one rectangle per dark run of a row. */
export function encodeSvg(columns: number, rows: number, dark: (column: number, row: number) => boolean, scale: number, quiet: number, rowScale = scale): string {
  const width = (columns + 2 * quiet) * scale;
  const height = (rows + 2 * quiet) * rowScale;
  const rects: string[] = [];
  for (let row = 0; row < rows; row++) {
    let column = 0;
    while (column < columns) {
      if (!dark(column, row)) {
        column++;
        continue;
      }
      const start = column;
      while (column < columns && dark(column, row)) column++;
      rects.push(`<rect x="${(start + quiet) * scale}" y="${(row + quiet) * rowScale}" width="${(column - start) * scale}" height="${rowScale}"/>`);
    }
  }
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" shape-rendering="crispEdges">` +
    `<rect width="100%" height="100%" fill="#fff"/><g fill="#000">${rects.join('')}</g></svg>\n`
  );
}
