/**
 * The demo shop's logo for the README's screenshots, drawn here so the script needs no image file: a teal rounded
 * square with a white ring and dot, anti-aliased (4 × 4 samples a pixel), as an RGBA PNG.
 */
import { crc32, deflateSync } from 'node:zlib';

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** 0 outside the shape, 1 on the teal square, 2 on the white mark. */
function sample(x: number, y: number, size: number): 0 | 1 | 2 {
  const r = size * 0.2;
  const cx = Math.min(Math.max(x, r), size - r);
  const cy = Math.min(Math.max(y, r), size - r);
  if (Math.hypot(x - cx, y - cy) > r) return 0;
  const d = Math.hypot(x - size / 2, y - size / 2);
  const ring = d > size * 0.24 && d < size * 0.34;
  return ring || d < size * 0.1 ? 2 : 1;
}

export function demoLogo(size = 128): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 6, 0, 0, 0], 8);
  const rows: Buffer[] = [];
  for (let y = 0; y < size; y++) {
    const row = Buffer.alloc(1 + size * 4);
    for (let x = 0; x < size; x++) {
      let teal = 0;
      let white = 0;
      for (let sy = 0; sy < 4; sy++) {
        for (let sx = 0; sx < 4; sx++) {
          const s = sample(x + (sx + 0.5) / 4, y + (sy + 0.5) / 4, size);
          if (s === 1) teal++;
          if (s === 2) white++;
        }
      }
      const cover = teal + white;
      const mix = (t: number, w: number) => (cover === 0 ? 0 : Math.round((t * teal + w * white) / cover));
      row.set([mix(14, 255), mix(116, 255), mix(144, 255), Math.round((cover / 16) * 255)], 1 + x * 4);
    }
    rows.push(row);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
