import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';

export interface DecodedImage {
  width: number;
  height: number;
  pixel(x: number, y: number): [number, number, number];
}

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47]);

/** A screenshot as the gateway sent it: JPEG or PNG, told apart by their magic bytes. */
export function decodeImage(data: Buffer): DecodedImage {
  return data.subarray(0, 4).equals(PNG_MAGIC) ? decodePng(data) : decodeJpeg(data);
}

export function decodePng(data: Buffer): DecodedImage {
  return rgbaImage(PNG.sync.read(data));
}

export function decodeJpeg(data: Buffer): DecodedImage {
  return rgbaImage(jpeg.decode(data, { useTArray: true, formatAsRGBA: true }));
}

function rgbaImage(image: { width: number; height: number; data: Uint8Array }): DecodedImage {
  return {
    width: image.width,
    height: image.height,
    pixel(x, y) {
      const offset = (Math.round(y) * image.width + Math.round(x)) * 4;
      return [image.data[offset]!, image.data[offset + 1]!, image.data[offset + 2]!];
    },
  };
}

export function hex(color: string): [number, number, number] {
  const value = Number.parseInt(color.replace('#', ''), 16);
  return [(value >> 16) & 255, (value >> 8) & 255, value & 255];
}

export function closeTo(actual: [number, number, number], expected: [number, number, number], tolerance = 12): boolean {
  return actual.every((channel, i) => Math.abs(channel - expected[i]!) <= tolerance);
}
