/**
 * A merchant logo's bytes, checked and cleaned without decoding the picture (docs/decisions.md §26.23). The type is
 * read from the magic bytes, never from a name or a header; the container is parsed chunk by chunk and rewritten
 * with only the chunks that draw the image, so text, EXIF (with its GPS position), XMP, ICC profiles and anything
 * after the image's end are gone. No native dependency: Paygate ships no image codec, and a parser that only copies
 * chunks cannot be made to run a decoder's bugs.
 */
import { crc32 } from 'node:zlib';
import { ApiError } from '../errors.js';

export type LogoType = 'image/png' | 'image/jpeg' | 'image/webp';

export interface LogoImage {
  type: LogoType;
  width: number;
  height: number;
  /** The cleaned file, as served. */
  bytes: Buffer;
}

/** A logo is shown at most ~80 px tall on a dense screen; these bounds keep a header image small to serve. */
export const LOGO_MAX_BYTES = 128 * 1024;
export const LOGO_MIN_SIDE = 32;
export const LOGO_MAX_SIDE = 2048;

export const LOGO_EXTENSION: Record<LogoType, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
};

const refuse = (message: string) => new ApiError('params_validation', message, { param: 'image' });
const damaged = (type: string) => refuse(`The ${type} file is damaged or incomplete: save it again and upload it.`);

/** Checks and cleans an uploaded logo, or throws `params_validation` naming `image` with a sentence for people. */
export function cleanLogo(bytes: Buffer): LogoImage {
  if (bytes.length === 0) throw refuse('The image is empty.');
  if (bytes.length > LOGO_MAX_BYTES) {
    throw refuse(`The image is ${kib(bytes.length)} KiB; a logo may be at most ${kib(LOGO_MAX_BYTES)} KiB.`);
  }
  const image = isPng(bytes)
    ? cleanPng(bytes)
    : isJpeg(bytes)
      ? cleanJpeg(bytes)
      : isWebp(bytes)
        ? cleanWebp(bytes)
        : null;
  if (!image) {
    const svg = /^\s*(<\?xml|<svg|<!DOCTYPE svg)/i.test(bytes.subarray(0, 256).toString('latin1'));
    throw refuse(
      svg
        ? 'SVG logos are not accepted (an SVG can carry script): upload a PNG, JPEG or WebP image.'
        : 'The file is not a PNG, JPEG or WebP image.',
    );
  }
  const { width, height } = image;
  if (Math.min(width, height) < LOGO_MIN_SIDE || Math.max(width, height) > LOGO_MAX_SIDE) {
    throw refuse(`The image is ${width} × ${height} px; each side must be ${LOGO_MIN_SIDE}–${LOGO_MAX_SIDE} px.`);
  }
  return image;
}

function kib(n: number): string {
  return (Math.ceil((n / 1024) * 10) / 10).toString();
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const isPng = (b: Buffer) => b.subarray(0, 8).equals(PNG_SIGNATURE);
const isJpeg = (b: Buffer) => b.length > 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff;
const isWebp = (b: Buffer) =>
  b.length >= 12 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP';

/** The chunks that draw a PNG: header, palette, transparency, colour space, data, end. Text and EXIF are dropped. */
const PNG_KEPT = new Set(['IHDR', 'PLTE', 'tRNS', 'gAMA', 'cHRM', 'sRGB', 'IDAT', 'IEND']);

function cleanPng(b: Buffer): LogoImage {
  const out: Buffer[] = [PNG_SIGNATURE];
  let at = 8;
  let width = 0;
  let height = 0;
  let sawData = false;
  for (;;) {
    if (at + 12 > b.length) throw damaged('PNG');
    const length = b.readUInt32BE(at);
    const type = b.toString('latin1', at + 4, at + 8);
    const end = at + 12 + length;
    if (end > b.length || !/^[A-Za-z]{4}$/.test(type)) throw damaged('PNG');
    if (crc32(b.subarray(at + 4, at + 8 + length)) !== b.readUInt32BE(at + 8 + length)) throw damaged('PNG');
    if (at === 8) {
      if (type !== 'IHDR' || length !== 13) throw damaged('PNG');
      width = b.readUInt32BE(at + 8);
      height = b.readUInt32BE(at + 12);
    }
    if (type === 'IDAT') sawData = true;
    if (PNG_KEPT.has(type)) out.push(b.subarray(at, end));
    at = end;
    if (type === 'IEND') break;
  }
  if (!sawData) throw damaged('PNG');
  return { type: 'image/png', width, height, bytes: Buffer.concat(out) };
}

/**
 * JPEG markers kept: the tables, the frame, restart intervals, the scans (with their entropy-coded data), JFIF's
 * APP0 and Adobe's APP14 (which says how the colours are coded). Dropped: APP1 (EXIF, XMP), APP2 (ICC), the other
 * APPn and comments. EXIF's orientation goes with it, so a logo is shown as its pixels are stored.
 */
function keptJpegMarker(marker: number): boolean {
  return (
    marker === 0xdb || // DQT
    marker === 0xc4 || // DHT
    marker === 0xcc || // DAC
    marker === 0xdd || // DRI
    marker === 0xda || // SOS
    marker === 0xe0 || // APP0 JFIF
    marker === 0xee || // APP14 Adobe
    isJpegFrame(marker)
  );
}

function isJpegFrame(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

function cleanJpeg(b: Buffer): LogoImage {
  const out: Buffer[] = [b.subarray(0, 2)];
  let at = 2;
  let width = 0;
  let height = 0;
  for (;;) {
    if (at + 4 > b.length || b[at] !== 0xff) throw damaged('JPEG');
    const marker = b[at + 1]!;
    if (marker === 0xff) {
      at += 1; // fill byte
      continue;
    }
    if (marker === 0xd9) {
      if (width === 0) throw damaged('JPEG');
      out.push(b.subarray(at, at + 2));
      break;
    }
    const length = b.readUInt16BE(at + 2);
    let end = at + 2 + length;
    if (length < 2 || end > b.length) throw damaged('JPEG');
    if (isJpegFrame(marker)) {
      if (length < 7) throw damaged('JPEG');
      height = b.readUInt16BE(at + 5);
      width = b.readUInt16BE(at + 7);
    }
    if (marker === 0xda) {
      // The scan's data runs to the next marker that is neither a stuffed 0xFF00 nor a restart (RST0–7).
      while (
        end + 1 < b.length &&
        !(b[end] === 0xff && b[end + 1] !== 0 && !(b[end + 1]! >= 0xd0 && b[end + 1]! <= 0xd7))
      ) {
        end += 1;
      }
      if (end + 1 >= b.length) throw damaged('JPEG');
    }
    if (keptJpegMarker(marker)) out.push(b.subarray(at, end));
    at = end;
  }
  return { type: 'image/jpeg', width, height, bytes: Buffer.concat(out) };
}

/** WebP chunks that draw the image (still or animated); EXIF, XMP and ICCP are dropped and VP8X's flags follow. */
const WEBP_KEPT = new Set(['VP8X', 'VP8 ', 'VP8L', 'ALPH', 'ANIM', 'ANMF']);
const VP8X_ICC = 0x20;
const VP8X_EXIF = 0x08;
const VP8X_XMP = 0x04;

function cleanWebp(b: Buffer): LogoImage {
  const declared = b.readUInt32LE(4) + 8;
  if (declared > b.length || declared < 20) throw damaged('WebP');
  const chunks: Buffer[] = [];
  let at = 12;
  let size: { width: number; height: number } | null = null;
  while (at < declared) {
    if (at + 8 > declared) throw damaged('WebP');
    const type = b.toString('latin1', at, at + 4);
    const length = b.readUInt32LE(at + 4);
    const end = at + 8 + length + (length % 2);
    if (at + 8 + length > declared) throw damaged('WebP');
    const data = b.subarray(at + 8, at + 8 + length);
    if (at === 12) size = webpSize(type, data);
    if (WEBP_KEPT.has(type)) {
      const chunk = Buffer.from(b.subarray(at, Math.min(end, declared)));
      if (type === 'VP8X') chunk[8] = chunk[8]! & ~(VP8X_ICC | VP8X_EXIF | VP8X_XMP);
      chunks.push(chunk);
    }
    at = end;
  }
  if (!size) throw damaged('WebP');
  const body = Buffer.concat(chunks);
  const header = Buffer.alloc(12);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(body.length + 4, 4);
  header.write('WEBP', 8, 'latin1');
  return { type: 'image/webp', ...size, bytes: Buffer.concat([header, body]) };
}

function webpSize(type: string, d: Buffer): { width: number; height: number } | null {
  if (type === 'VP8X' && d.length >= 10) {
    return { width: d.readUIntLE(4, 3) + 1, height: d.readUIntLE(7, 3) + 1 };
  }
  if (type === 'VP8 ' && d.length >= 10 && d[3] === 0x9d && d[4] === 0x01 && d[5] === 0x2a) {
    return { width: d.readUInt16LE(6) & 0x3fff, height: d.readUInt16LE(8) & 0x3fff };
  }
  if (type === 'VP8L' && d.length >= 5 && d[0] === 0x2f) {
    const bits = d.readUInt32LE(1);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  return null;
}
