/**
 * Small image files built byte by byte for the logo tests, each with the metadata a camera or an editor leaves in
 * (text, EXIF with a GPS tag, XMP), so a test can see it removed. The PNG is a real picture a browser draws.
 */
import { crc32, deflateSync } from 'node:zlib';

/** What the metadata chunks hold, to search the served bytes for. */
export const SECRET = 'GPS 48.8584N 2.2945E';

function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([head, body, crc]);
}

/** A `width` × `height` RGBA PNG: a coloured square with a white bar, plus a tEXt and an eXIf chunk. */
export function pngLogo(width = 64, height = 64, metadata = true): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 6, 0, 0, 0], 8);
  const rows: Buffer[] = [];
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(1 + width * 4);
    for (let x = 0; x < width; x++) {
      const bar = y > height * 0.4 && y < height * 0.6 && x > width * 0.2 && x < width * 0.8;
      row.set(bar ? [255, 255, 255, 255] : [14, 116, 144, 255], 1 + x * 4);
    }
    rows.push(row);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    ...(metadata ? [pngChunk('tEXt', Buffer.from(`Comment\0${SECRET}`, 'latin1'))] : []),
    pngChunk('IDAT', deflateSync(Buffer.concat(rows))),
    ...(metadata ? [pngChunk('eXIf', Buffer.from(`MM\0*${SECRET}`, 'latin1'))] : []),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

function jpegSegment(marker: number, data: Buffer): Buffer {
  const head = Buffer.from([0xff, marker, 0, 0]);
  head.writeUInt16BE(data.length + 2, 2);
  return Buffer.concat([head, data]);
}

/** A JPEG's structure (tables, a 48 × 40 frame, one scan) with an EXIF APP1 and a comment; not meant to be drawn. */
export function jpegLogo(): Buffer {
  const frame = Buffer.from([8, 0, 40, 0, 48, 1, 1, 0x11, 0]);
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    jpegSegment(0xe0, Buffer.from('JFIF\0\x01\x01\0\0\x01\0\x01\0\0', 'latin1')),
    jpegSegment(0xe1, Buffer.from(`Exif\0\0${SECRET}`, 'latin1')),
    jpegSegment(0xdb, Buffer.alloc(65, 1)),
    jpegSegment(0xc0, frame),
    jpegSegment(0xc4, Buffer.alloc(20, 0)),
    jpegSegment(0xfe, Buffer.from(SECRET, 'latin1')),
    jpegSegment(0xda, Buffer.from([1, 1, 0, 0, 63, 0])),
    Buffer.from([0x12, 0xff, 0x00, 0x34, 0xff, 0xd0, 0x56]),
    Buffer.from([0xff, 0xd9]),
    Buffer.from(`trailing ${SECRET}`, 'latin1'),
  ]);
}

function riffChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.write(type, 0, 'latin1');
  head.writeUInt32LE(data.length, 4);
  return Buffer.concat([head, data, data.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0)]);
}

/** An extended WebP (VP8X, 100 × 50) with EXIF and XMP chunks and their flags set. */
export function webpLogo(): Buffer {
  const vp8x = Buffer.alloc(10);
  vp8x[0] = 0x08 | 0x04 | 0x10; // EXIF, XMP, alpha
  vp8x.writeUIntLE(99, 4, 3);
  vp8x.writeUIntLE(49, 7, 3);
  // A lossless bitstream header (signature, then width-1 and height-1 in 14 bits each); the rest is filler.
  const vp8l = Buffer.alloc(12);
  vp8l[0] = 0x2f;
  vp8l.writeUInt32LE(99 | (49 << 14), 1);
  const body = Buffer.concat([
    riffChunk('VP8X', vp8x),
    riffChunk('VP8L', vp8l),
    riffChunk('EXIF', Buffer.from(SECRET, 'latin1')),
    riffChunk('XMP ', Buffer.from(`<x:xmpmeta>${SECRET}</x:xmpmeta>`, 'latin1')),
  ]);
  const head = Buffer.alloc(12);
  head.write('RIFF', 0, 'latin1');
  head.writeUInt32LE(body.length + 4, 4);
  head.write('WEBP', 8, 'latin1');
  return Buffer.concat([head, body]);
}

export const SVG_LOGO = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><script>alert(1)</script></svg>',
);
