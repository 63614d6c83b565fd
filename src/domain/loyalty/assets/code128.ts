// Code 128 barcodes (ISO/IEC 15417) for card codes: code set B for printable ASCII, code set C for
// all-digit codes of even length (half as wide). Each symbol is three bars and three spaces, 11 modules
// wide; the stop symbol has a fourth bar (13 modules).

/** Bar/space widths of symbol values 0–106, bar first. */
export const CODE128_PATTERNS: readonly string[] = [
  '212222', '222122', '222221', '121223', '121322', '131222', '122213', '122312', '132212', '221213',
  '221312', '231212', '112232', '122132', '122231', '113222', '123122', '123221', '223211', '221132',
  '221231', '213212', '223112', '312131', '311222', '321122', '321221', '312212', '322112', '322211',
  '212123', '212321', '232121', '111323', '131123', '131321', '112313', '132113', '132311', '211313',
  '231113', '231311', '112133', '112331', '132131', '113123', '113321', '133121', '313121', '211331',
  '231131', '213113', '213311', '213131', '311123', '311321', '331121', '312113', '312311', '332111',
  '314111', '221411', '431111', '111224', '111422', '121124', '121421', '141122', '141221', '112214',
  '112412', '122114', '122411', '142112', '142211', '241211', '221114', '413111', '241112', '134111',
  '111242', '121142', '121241', '114212', '124112', '124211', '411212', '421112', '421211', '212141',
  '214121', '412121', '111143', '111341', '131141', '114113', '114311', '411113', '411311', '113141',
  '114131', '311141', '411131', '211412', '211214', '211232', '2331112',
];

export const START_B = 104;
export const START_C = 105;
export const STOP = 106;

export class UnencodableCodeError extends Error {}

/** The symbol values: start, data, checksum, stop. */
export function code128Symbols(text: string): number[] {
  if (text.length === 0) throw new UnencodableCodeError('An empty code has no barcode');
  const values: number[] = [];
  if (/^\d+$/.test(text) && text.length % 2 === 0) {
    values.push(START_C);
    for (let i = 0; i < text.length; i += 2) values.push(Number(text.slice(i, i + 2)));
  } else {
    values.push(START_B);
    for (const ch of text) {
      const c = ch.codePointAt(0) as number;
      if (c < 32 || c > 126) throw new UnencodableCodeError(`Code 128 (set B) cannot encode the character ${JSON.stringify(ch)}`);
      values.push(c - 32);
    }
  }
  const checksum = values.reduce((sum, value, i) => sum + value * Math.max(i, 1), 0) % 103;
  values.push(checksum, STOP);
  return values;
}

/** The barcode as modules, left to right: true = bar. */
export function code128Modules(text: string): boolean[] {
  const modules: boolean[] = [];
  for (const value of code128Symbols(text)) {
    const pattern = CODE128_PATTERNS[value] as string;
    [...pattern].forEach((width, i) => {
      for (let k = 0; k < Number(width); k++) modules.push(i % 2 === 0);
    });
  }
  return modules;
}
