import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CODE128_PATTERNS, code128Modules, code128Symbols, UnencodableCodeError } from '../../src/domain/loyalty/assets/code128.ts';
import { crc32, encodePng, encodeSvg, scaledBitmap } from '../../src/domain/loyalty/assets/png.ts';
import { alignmentPositions, dataCodewords, encodeQr, formatBits } from '../../src/domain/loyalty/assets/qr-code.ts';
import { qrGridFromPng, readPng, readQr, runsOfRow } from '../helpers/png-reader.ts';

// The card assets: PNG writing, QR codes and Code 128 barcodes. Every picture is read back by an
// independent reader (tests/helpers/png-reader.ts) rather than compared with the encoder's own tables.
// (During development every version 1–40 at every level was also read by a stock scanner, zbarimg.)

describe('PNG writer', () => {
  test('CRC-32 of the standard check string', () => {
    assert.equal(crc32(Buffer.from('123456789')), 0xcbf43926);
  });

  test('a 1-bit greyscale image with valid chunks and the pixels drawn', () => {
    const image = readPng(encodePng({ width: 10, height: 3, dark: (x, y) => (x + y) % 3 === 0 }));
    assert.equal(image.width, 10);
    assert.equal(image.height, 3);
    assert.deepEqual(image.chunks, ['IHDR', 'IDAT', 'IEND']);
    for (let y = 0; y < 3; y++) for (let x = 0; x < 10; x++) assert.equal(image.dark(x, y), (x + y) % 3 === 0, `pixel ${x},${y}`);
  });

  test('scaling adds a light quiet zone and repeats every module', () => {
    const bitmap = scaledBitmap(2, 1, (c) => c === 0, 3, 1);
    assert.equal(bitmap.width, 12);
    assert.equal(bitmap.height, 9);
    const row = Array.from({ length: 12 }, (_, x) => bitmap.dark(x, 4));
    assert.deepEqual(row, [false, false, false, true, true, true, false, false, false, false, false, false]);
    assert.equal(bitmap.dark(3, 0), false, 'quiet rows are light');
  });

  test('SVG draws one rectangle per dark run', () => {
    const svg = encodeSvg(4, 1, (c) => c !== 2, 2, 0);
    assert.match(svg, /^<\?xml/);
    assert.equal((svg.match(/<rect x=/g) ?? []).length, 2);
    assert.match(svg, /width="8" height="2"/);
  });
});

describe('QR codes', () => {
  const cases = ['LC-1', 'L-CARD-BUHuH6g', 'Zażółć gęślą', 'x'.repeat(40)];
  for (const text of cases) {
    test(`"${text.slice(0, 20)}" reads back from its PNG`, () => {
      const qr = encodeQr(Buffer.from(text, 'utf8'), 'M');
      assert.equal(qr.size, qr.version * 4 + 17);
      const png = readPng(encodePng(scaledBitmap(qr.size, qr.size, (x, y) => (qr.modules[y] as boolean[])[x] as boolean, 4, 4)));
      assert.equal(png.width, (qr.size + 8) * 4);
      assert.equal(png.height, png.width);
      const read = readQr(qrGridFromPng(png, 4, 4));
      assert.equal(read.text, text);
      assert.equal(read.level, 'M');
      assert.equal(read.mask, qr.mask);
      assert.equal(read.version, qr.version);
    });
  }

  test('the smallest version that holds the data is chosen', () => {
    // Version 1-M holds 16 data codewords: mode (4 bits) + count (8 bits) + 14 bytes fit, 15 do not.
    assert.equal(dataCodewords(1, 'M'), 16);
    assert.equal(encodeQr(Buffer.alloc(14, 65)).version, 1);
    assert.equal(encodeQr(Buffer.alloc(15, 65)).version, 2);
    assert.equal(encodeQr(Buffer.alloc(2331, 65), 'M').version, 40);
    assert.throws(() => encodeQr(Buffer.alloc(2332, 65), 'M'), RangeError);
  });

  test('format information and alignment positions match the standard', () => {
    // Level M, mask 0 encodes as 101010000010010 (ISO/IEC 18004 table C.1).
    assert.equal(formatBits('M', 0), 0b101010000010010);
    assert.equal(formatBits('L', 0), 0b111011111000100);
    assert.deepEqual(alignmentPositions(1), []);
    assert.deepEqual(alignmentPositions(2), [6, 18]);
    assert.deepEqual(alignmentPositions(7), [6, 22, 38]);
    assert.deepEqual(alignmentPositions(32), [6, 34, 60, 86, 112, 138]);
  });
});

describe('Code 128 barcodes', () => {
  // Expected bar/space widths typed from the standard's symbol table, not taken from the encoder.
  const expectations: Array<[string, string]> = [
    // Start B, L, C, -, 1, checksum 16, stop
    ['LC-1', '211214 132131 131321 122132 123221 123122 2331112'],
    // Start C, 12, 34, 56, 78, checksum 47, stop
    ['12345678', '211232 112232 131123 331121 241112 133121 2331112'],
  ];
  for (const [text, widths] of expectations) {
    test(`${text} draws the standard's module pattern`, () => {
      const scale = 3;
      const quiet = 10;
      const modules = code128Modules(text);
      const png = readPng(encodePng(scaledBitmap(modules.length + 2 * quiet, 1, (x) => x >= quiet && x < quiet + modules.length && (modules[x - quiet] as boolean), scale, 0, 40)));
      assert.equal(png.height, 40);
      for (const y of [0, 20, 39]) {
        const runs = runsOfRow(png, y);
        assert.equal(runs[0]?.dark, false);
        assert.equal(runs[0]?.length, quiet * scale, 'leading quiet zone');
        assert.equal(runs.at(-1)?.length, quiet * scale, 'trailing quiet zone');
        const bars = runs.slice(1, -1).map((r) => r.length / scale).join('');
        assert.equal(bars, widths.replaceAll(' ', ''), `row ${y}`);
        runs.slice(1, -1).forEach((r, i) => assert.equal(r.dark, i % 2 === 0, 'bars and spaces alternate, starting with a bar'));
      }
    });
  }

  test('every symbol is 3 bars and 3 spaces over 11 modules; the stop symbol 13', () => {
    assert.equal(CODE128_PATTERNS.length, 107);
    CODE128_PATTERNS.forEach((pattern, value) => {
      const sum = [...pattern].reduce((s, w) => s + Number(w), 0);
      assert.equal(sum, value === 106 ? 13 : 11, `symbol ${value}`);
      assert.equal(pattern.length, value === 106 ? 7 : 6);
    });
    assert.equal(new Set(CODE128_PATTERNS).size, 107, 'all symbols distinct');
  });

  test('odd-length digit codes use set B; characters outside printable ASCII are refused', () => {
    assert.equal(code128Symbols('123')[0], 104);
    assert.throws(() => code128Symbols('kaffe☕'), UnencodableCodeError);
    assert.throws(() => code128Symbols(''), UnencodableCodeError);
  });
});
