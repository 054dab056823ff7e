/**
 * One live-view frame as it travels from the worker to the gateways (Redis pub/sub) and is
 * kept as the desktop's latest: a u32 LE header length, the JSON header, then the JPEG.
 * A header with `unavailable` carries no image: the desktop cannot stream (and says why).
 */
export interface LiveFrameHeader {
  /** When the frame was captured (epoch ms, the worker's clock). */
  at: number;
  width: number;
  height: number;
  /** From the damage that woke the helper to the encoded frame, ms. */
  captureMs: number;
  unavailable?: string;
}

export function encodeLiveFrame(header: LiveFrameHeader, image: Uint8Array = new Uint8Array()): Buffer {
  const json = Buffer.from(JSON.stringify(header));
  const length = Buffer.alloc(4);
  length.writeUInt32LE(json.length, 0);
  return Buffer.concat([length, json, image]);
}

export function decodeLiveFrame(message: Buffer): { header: LiveFrameHeader; image: Buffer } | null {
  if (message.length < 4) return null;
  const length = message.readUInt32LE(0);
  if (4 + length > message.length) return null;
  try {
    return { header: JSON.parse(message.subarray(4, 4 + length).toString('utf8')) as LiveFrameHeader, image: message.subarray(4 + length) };
  } catch {
    return null;
  }
}
