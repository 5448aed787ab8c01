// The company's logo (CONTRACT §20): a PNG or JPEG of at most 1 MB, shown on PDFs and client
// pages. What is stored must be what it says it is: the media type one of the two, the bytes
// starting with that format's signature, the header read by image-size (dimensions within
// bounds, so that no small file decodes to a huge bitmap), and a PNG decoded whole by pngjs
// (its chunks' CRCs and its compressed data). An SVG (which may carry script) is never taken.
import { imageSize } from 'image-size';
import { PNG } from 'pngjs';
import { ApiError, ViolationCode } from '../../engine/errors.ts';

export const LOGO_TYPES = ['image/png', 'image/jpeg'] as const;
export const LOGO_MAX_BYTES = 1024 * 1024;
/** The largest width or height taken, in pixels. */
export const LOGO_MAX_SIDE = 4000;

export interface Logo {
  contentType: (typeof LOGO_TYPES)[number];
  bytes: Buffer;
  width: number;
  height: number;
}

const SIGNATURES: Record<(typeof LOGO_TYPES)[number], { magic: Buffer; type: string; name: string }> = {
  'image/png': { magic: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), type: 'png', name: 'PNG' },
  'image/jpeg': { magic: Buffer.from([0xff, 0xd8, 0xff]), type: 'jpg', name: 'JPEG' },
};

const refuse = (message: string): never => {
  throw ApiError.validation([{ propertyPath: 'logo', message, code: ViolationCode.format }]);
};

/** The logo in `bytes` sent as `mediaType`, checked; a 422 on `logo` naming what is wrong. */
export function checkLogo(mediaType: string, bytes: Buffer): Logo {
  const type = mediaType.toLowerCase() === 'image/jpg' ? 'image/jpeg' : mediaType.toLowerCase();
  if (!(LOGO_TYPES as readonly string[]).includes(type)) refuse(`A logo is a PNG or JPEG image (Content-Type image/png or image/jpeg), not ${mediaType || 'a body without a Content-Type'}.`);
  const sig = SIGNATURES[type as (typeof LOGO_TYPES)[number]];
  if (!bytes.length) refuse('The body is empty: send the image itself.');
  if (bytes.length > LOGO_MAX_BYTES) throw new ApiError(413, `A logo is at most ${LOGO_MAX_BYTES} bytes (1 MB).`, { title: 'Payload Too Large' });
  if (!bytes.subarray(0, sig.magic.length).equals(sig.magic)) refuse(`This is not a ${sig.name} image: its first bytes are not a ${sig.name} signature.`);
  let size: { width?: number; height?: number; type?: string };
  try {
    size = imageSize(bytes);
  } catch {
    return refuse(`This ${sig.name} image cannot be read: its header is damaged or incomplete.`);
  }
  if (size.type !== sig.type || !size.width || !size.height) refuse(`This ${sig.name} image cannot be read: its header is damaged or incomplete.`);
  const width = size.width!;
  const height = size.height!;
  if (width > LOGO_MAX_SIDE || height > LOGO_MAX_SIDE) refuse(`This image is ${width}×${height} pixels: a logo is at most ${LOGO_MAX_SIDE} pixels wide and high.`);
  if (type === 'image/png') {
    try {
      PNG.sync.read(bytes);
    } catch (e) {
      refuse(`This PNG image does not decode: ${(e as Error).message}.`);
    }
  } else if (bytes.lastIndexOf(Buffer.from([0xff, 0xd9])) < 0) refuse('This JPEG image is incomplete: it has no end marker.');
  return { contentType: type as Logo['contentType'], bytes, width, height };
}
