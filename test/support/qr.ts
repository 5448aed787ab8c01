// Reads a QR code back from a PNG (a rendering, a screenshot, a PDF page), as a banking app would.
import * as jsqr from 'jsqr';
import { PNG } from 'pngjs';

type Decode = (data: Uint8ClampedArray, width: number, height: number) => { data: string } | null;
// jsqr is CommonJS whose types declare an ES default export: take the function either way.
const m = jsqr as unknown as { default?: Decode | { default?: Decode } };
const jsQR = (typeof m.default === 'function' ? m.default : (m.default as { default: Decode }).default) as Decode;

export function decodePng(png: Buffer): string | null {
  const img = PNG.sync.read(png);
  return jsQR(new Uint8ClampedArray(img.data.buffer, img.data.byteOffset, img.data.length), img.width, img.height)?.data ?? null;
}
