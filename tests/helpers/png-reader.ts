import assert from 'node:assert/strict';
import { inflateSync } from 'node:zlib';

// Reads back the PNGs the asset endpoints draw, independently of the encoder: chunk CRCs, the header,
// and the pixels of a 1-bit greyscale image, so tests can check sizes and module patterns.

const CRC = (() => {
  const table: number[] = [];
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table.push(c >>> 0);
  }
  return (bytes: Buffer) => {
    let c = 0xffffffff;
    for (const b of bytes) c = (table[(c ^ b) & 0xff] as number) ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
})();

export interface DecodedPng {
  width: number;
  height: number;
  bitDepth: number;
  colourType: number;
  chunks: string[];
  /** dark(x, y): whether the pixel is black. */
  dark(x: number, y: number): boolean;
}

export function readPng(png: Buffer): DecodedPng {
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG signature');
  const chunks: string[] = [];
  const idat: Buffer[] = [];
  let header: Buffer | null = null;
  for (let at = 8; at < png.length; ) {
    const length = png.readUInt32BE(at);
    const type = png.subarray(at + 4, at + 8).toString('ascii');
    const data = png.subarray(at + 8, at + 8 + length);
    const crc = png.readUInt32BE(at + 8 + length);
    assert.equal(crc, CRC(png.subarray(at + 4, at + 8 + length)), `CRC of ${type}`);
    chunks.push(type);
    if (type === 'IHDR') header = data;
    if (type === 'IDAT') idat.push(data);
    at += 12 + length;
  }
  assert.ok(header, 'IHDR present');
  assert.equal(chunks[0], 'IHDR');
  assert.equal(chunks.at(-1), 'IEND');
  const width = header.readUInt32BE(0);
  const height = header.readUInt32BE(4);
  const bitDepth = header[8] as number;
  const colourType = header[9] as number;
  assert.equal(bitDepth, 1, 'one bit per pixel');
  assert.equal(colourType, 0, 'greyscale');
  assert.equal(header[12], 0, 'not interlaced');
  const raw = inflateSync(Buffer.concat(idat));
  const rowBytes = Math.ceil(width / 8);
  assert.equal(raw.length, (rowBytes + 1) * height, 'scanline data size');
  for (let y = 0; y < height; y++) assert.equal(raw[y * (rowBytes + 1)], 0, 'filter type None');
  return {
    width,
    height,
    bitDepth,
    colourType,
    chunks,
    dark(x, y) {
      const byte = raw[y * (rowBytes + 1) + 1 + (x >> 3)] as number;
      // In greyscale a set bit is white.
      return ((byte >> (7 - (x & 7))) & 1) === 0;
    },
  };
}

/** Run lengths of a pixel row (alternating colours, starting with the first pixel's), in pixels. */
export function runsOfRow(image: DecodedPng, y: number): Array<{ dark: boolean; length: number }> {
  const runs: Array<{ dark: boolean; length: number }> = [];
  for (let x = 0; x < image.width; x++) {
    const dark = image.dark(x, y);
    const last = runs.at(-1);
    if (last && last.dark === dark) last.length++;
    else runs.push({ dark, length: 1 });
  }
  return runs;
}

// ---- a QR reader for versions 1–3 at any level with one block (enough for card codes in tests) ----

function gfTables() {
  const exp = new Array<number>(512);
  const log = new Array<number>(256).fill(0);
  let x = 1;
  for (let i = 0; i < 255; i++) {
    exp[i] = x;
    log[x] = i;
    x <<= 1;
    if (x & 0x100) x ^= 0x11d;
  }
  for (let i = 255; i < 512; i++) exp[i] = exp[i - 255] as number;
  return { exp, log };
}

/**
 * Decodes a QR symbol from its module grid the way a scanner would: format bits, unmasking, the zigzag
 * read, a Reed–Solomon syndrome check, and the byte-mode segment. Written apart from the encoder.
 */
export function readQr(grid: boolean[][]): { text: string; version: number; level: string; mask: number } {
  const size = grid.length;
  const version = (size - 17) / 4;
  assert.ok(Number.isInteger(version) && version >= 1 && version <= 3, `QR version ${version} is one this reader handles`);
  const at = (x: number, y: number) => (grid[y] as boolean[])[x] as boolean;
  // Finder patterns: 7×7 dark ring, light ring, 3×3 dark core, at three corners.
  for (const [cx, cy] of [[3, 3], [size - 4, 3], [3, size - 4]] as const) {
    for (let dy = -3; dy <= 3; dy++) {
      for (let dx = -3; dx <= 3; dx++) {
        const ring = Math.max(Math.abs(dx), Math.abs(dy));
        assert.equal(at(cx + dx, cy + dy), ring !== 2, `finder at ${cx},${cy}`);
      }
    }
  }
  for (let i = 8; i < size - 8; i++) {
    assert.equal(at(i, 6), i % 2 === 0, 'horizontal timing pattern');
    assert.equal(at(6, i), i % 2 === 0, 'vertical timing pattern');
  }
  // Format bits, first copy: bits 0–5 down column 8, then (8,7), (8,8), (7,8), then bits 9–14 along row 8.
  const positions: Array<[number, number]> = [];
  for (let i = 0; i <= 5; i++) positions.push([8, i]);
  positions.push([8, 7], [8, 8], [7, 8]);
  for (let i = 9; i < 15; i++) positions.push([14 - i, 8]);
  let format = 0;
  positions.forEach(([x, y], i) => {
    if (at(x, y)) format |= 1 << i;
  });
  const unmasked = format ^ 0x5412;
  // The 5 data bits must be protected by the BCH(15,5) code with generator 0x537.
  let rem = unmasked;
  for (let i = 14; i >= 10; i--) if (rem & (1 << i)) rem ^= 0x537 << (i - 10);
  assert.equal(rem, 0, 'format information is a BCH codeword');
  const levelBits = unmasked >> 13;
  const mask = (unmasked >> 10) & 7;
  const level = ['M', 'L', 'H', 'Q'][levelBits] as string;

  // Function modules: finders with separators and format areas, timing, the dark module, the alignment pattern.
  const fn = (x: number, y: number): boolean => {
    if ((x <= 8 && y <= 8) || (x >= size - 8 && y <= 8) || (x <= 8 && y >= size - 8)) return true;
    if (x === 6 || y === 6) return true;
    if (version >= 2) {
      const c = size - 7;
      if (Math.abs(x - c) <= 2 && Math.abs(y - c) <= 2) return true;
    }
    return false;
  };
  const maskFn = [
    (x: number, y: number) => (x + y) % 2 === 0,
    (_x: number, y: number) => y % 2 === 0,
    (x: number) => x % 3 === 0,
    (x: number, y: number) => (x + y) % 3 === 0,
    (x: number, y: number) => (Math.floor(y / 2) + Math.floor(x / 3)) % 2 === 0,
    (x: number, y: number) => ((x * y) % 2) + ((x * y) % 3) === 0,
    (x: number, y: number) => (((x * y) % 2) + ((x * y) % 3)) % 2 === 0,
    (x: number, y: number) => (((x + y) % 2) + ((x * y) % 3)) % 2 === 0,
  ][mask] as (x: number, y: number) => boolean;
  const bits: number[] = [];
  let upward = true;
  for (let right = size - 1; right > 0; right -= 2) {
    if (right === 6) right--;
    for (let k = 0; k < size; k++) {
      const y = upward ? size - 1 - k : k;
      for (const x of [right, right - 1]) {
        if (fn(x, y)) continue;
        bits.push(at(x, y) !== maskFn(x, y) ? 1 : 0);
      }
    }
    upward = !upward;
  }
  const codewords: number[] = [];
  for (let i = 0; i + 8 <= bits.length; i += 8) codewords.push(bits.slice(i, i + 8).reduce((a, b) => (a << 1) | b, 0));
  // Total codewords per version: 26, 44, 70; all versions 1–3 at every level use a single block except 3-Q/3-H.
  const total = [0, 26, 44, 70][version] as number;
  assert.equal(codewords.length, total, 'codeword count');
  const ecc = { L: [0, 7, 10, 15], M: [0, 10, 16, 26], Q: [0, 13, 22, 18], H: [0, 17, 28, 22] }[level as 'L'][version] as number;
  assert.ok(!(version === 3 && (level === 'Q' || level === 'H')), 'single-block symbols only');
  const { exp, log } = gfTables();
  // Every syndrome S_i = C(α^i), i = 0 … ecc−1, of a valid codeword is zero.
  for (let i = 0; i < ecc; i++) {
    let s = 0;
    for (const c of codewords) s = (s === 0 ? 0 : (exp[(log[s] as number) + i] as number)) ^ c;
    assert.equal(s, 0, `Reed–Solomon syndrome ${i}`);
  }
  const data = codewords.slice(0, total - ecc);
  const stream = data.flatMap((byte) => Array.from({ length: 8 }, (_, i) => (byte >> (7 - i)) & 1));
  const take = (n: number) => stream.splice(0, n).reduce((a, b) => (a << 1) | b, 0);
  assert.equal(take(4), 0b0100, 'byte mode');
  const count = take(8);
  const bytes = Array.from({ length: count }, () => take(8));
  return { text: Buffer.from(bytes).toString('utf8'), version, level, mask };
}

/** The module grid of a QR PNG drawn with `scale` pixels per module and a `quiet`-module border. */
export function qrGridFromPng(image: DecodedPng, scale: number, quiet: number): boolean[][] {
  const size = image.width / scale - 2 * quiet;
  assert.ok(Number.isInteger(size), 'whole modules');
  return Array.from({ length: size }, (_, row) =>
    Array.from({ length: size }, (_, column) => image.dark((column + quiet) * scale + Math.floor(scale / 2), (row + quiet) * scale + Math.floor(scale / 2))),
  );
}
