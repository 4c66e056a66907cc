// A 5 x 7 pixel font for the colour bar's labels: digits, sign, point and exponent are all a
// number needs, so no font file or text renderer is required.
const BLANK: readonly string[] = ['00000', '00000', '00000', '00000', '00000', '00000', '00000'];

const GLYPHS: Readonly<Record<string, readonly string[]>> = {
  '0': ['01110', '10001', '10011', '10101', '11001', '10001', '01110'],
  '1': ['00100', '01100', '00100', '00100', '00100', '00100', '01110'],
  '2': ['01110', '10001', '00001', '00010', '00100', '01000', '11111'],
  '3': ['11110', '00001', '00001', '01110', '00001', '00001', '11110'],
  '4': ['00010', '00110', '01010', '10010', '11111', '00010', '00010'],
  '5': ['11111', '10000', '11110', '00001', '00001', '10001', '01110'],
  '6': ['00110', '01000', '10000', '11110', '10001', '10001', '01110'],
  '7': ['11111', '00001', '00010', '00100', '01000', '01000', '01000'],
  '8': ['01110', '10001', '10001', '01110', '10001', '10001', '01110'],
  '9': ['01110', '10001', '10001', '01111', '00001', '00010', '01100'],
  '-': ['00000', '00000', '00000', '11111', '00000', '00000', '00000'],
  '+': ['00000', '00100', '00100', '11111', '00100', '00100', '00000'],
  '.': ['00000', '00000', '00000', '00000', '00000', '01100', '01100'],
  e: ['00000', '00000', '01110', '10001', '11111', '10000', '01110'],
  ' ': BLANK,
};

export const GLYPH_WIDTH = 5;
export const GLYPH_HEIGHT = 7;

/** Calls `dot(x, y)` for every set pixel of `text` drawn at `scale`; unknown characters are blank. */
export function drawText(text: string, scale: number, dot: (x: number, y: number) => void): void {
  [...text].forEach((ch, i) => {
    const rows = GLYPHS[ch] ?? BLANK;
    rows.forEach((row, gy) => {
      for (let gx = 0; gx < GLYPH_WIDTH; gx++) {
        if (row[gx] !== '1') continue;
        for (let sy = 0; sy < scale; sy++) for (let sx = 0; sx < scale; sx++) dot((i * (GLYPH_WIDTH + 1) + gx) * scale + sx, gy * scale + sy);
      }
    });
  });
}

export const textWidth = (text: string, scale: number): number => text.length * (GLYPH_WIDTH + 1) * scale;
