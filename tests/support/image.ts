import jpeg from 'jpeg-js';

export interface DecodedImage {
  width: number;
  height: number;
  pixel(x: number, y: number): [number, number, number];
}

export function decodeJpeg(data: Buffer): DecodedImage {
  const image = jpeg.decode(data, { useTArray: true, formatAsRGBA: true });
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
