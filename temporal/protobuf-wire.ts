// The protobuf wire format, as much as a hand-coded message needs: varints, length-delimited fields and skipping any
// other field. Here rather than protobufjs because loading protobufjs/minimal is 18 CommonJS files, which cost as
// much as the rest of `scrape-etl schedule list` (bench/startup.ts); the messages it codes are in
// temporal/list-schedules.ts, checked against a real server and Temporal's own CLI (test/integration/cli/cli-schedule.test.ts).

export const WIRE = { varint: 0, fixed64: 1, lengthDelimited: 2, fixed32: 5 } as const;

/** A message being read: fields in order, each a tag (field number, wire type) and its value. */
export class WireReader {
  pos = 0;
  constructor(private readonly buf: Uint8Array) {}

  get end(): number {
    return this.buf.length;
  }

  /** An unsigned varint; exact up to 2^53 (times in seconds, sizes, booleans). */
  varint(): number {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.buf.length) throw new Error('protobuf: a varint runs past the end of the message');
      const b = this.buf[this.pos++]!;
      value += (b & 0x7f) * scale;
      if (b < 0x80) return value;
      scale *= 128;
    }
    throw new Error('protobuf: a varint longer than 10 bytes');
  }

  tag(): { field: number; wireType: number } {
    const t = this.varint();
    return { field: Math.floor(t / 8), wireType: t % 8 };
  }

  /** A length-delimited value's bytes (a string, bytes, or an embedded message). */
  bytes(): Uint8Array {
    const length = this.varint();
    if (this.pos + length > this.buf.length) throw new Error('protobuf: a field runs past the end of the message');
    const out = this.buf.subarray(this.pos, this.pos + length);
    this.pos += length;
    return out;
  }

  string(): string {
    return Buffer.from(this.bytes()).toString('utf8');
  }

  skip(wireType: number): void {
    if (wireType === WIRE.varint) this.varint();
    else if (wireType === WIRE.fixed64) this.pos += 8;
    else if (wireType === WIRE.lengthDelimited) this.bytes();
    else if (wireType === WIRE.fixed32) this.pos += 4;
    else throw new Error(`protobuf: wire type ${wireType} (groups) is not expected here`);
    if (this.pos > this.buf.length) throw new Error('protobuf: a field runs past the end of the message');
  }
}

/** A message being written, field by field. */
export class WireWriter {
  private readonly parts: number[] = [];

  private varint(v: number): void {
    let n = v;
    while (n >= 0x80) {
      this.parts.push((n % 128) | 0x80);
      n = Math.floor(n / 128);
    }
    this.parts.push(n);
  }

  /** A length-delimited field: a string (as UTF-8) or bytes. */
  field(no: number, value: string | Uint8Array): this {
    const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
    this.varint(no * 8 + WIRE.lengthDelimited);
    this.varint(bytes.length);
    for (const b of bytes) this.parts.push(b);
    return this;
  }

  finish(): Uint8Array {
    return Uint8Array.from(this.parts);
  }
}
