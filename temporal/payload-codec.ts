// Every Temporal payload of scrape-etl (workflow inputs and results, activity arguments and results, heartbeat
// details, schedule actions, memos but the few values meant for the Web UI: see visibleInUi) is encrypted with AES-256-GCM under the data folder's key (lib/secret-key.ts)
// before it leaves the process, so the Temporal server's state (the embedded server's temporal.db, a cluster's
// database) never holds a pipeline's destination password or its data in clear. The client of every command, the
// worker, schedules and the replay test all use this data converter.
//
// Decoding never throws: a payload that is not ours (a neighbour's plain JSON, another key's, tampered) is handed
// on as it is or as a marker object, so the workflow gets an input without a valid seal and fails at once,
// non-retryably, with a clear reason (activities/plan.ts); a throwing codec would instead fail its workflow task
// again and again, for ever.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { DataConverter, Payload, PayloadCodec } from '@temporalio/common';
import { secretKeys, type SecretKeys } from '../lib/secret-key.js';
import { ANOTHER_KEY, VISIBLE_IN_UI_KEY } from './contract.js';

export const ENCRYPTED_ENCODING = 'binary/encrypted';
const CIPHER = 'AES-256-GCM';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const te = new TextEncoder();
const td = new TextDecoder();

/** A payload as bytes: its metadata entries (length-prefixed) then its data. */
function serialize(p: Payload): Buffer {
  const parts: Buffer[] = [];
  const entries = Object.entries(p.metadata ?? {});
  const head = Buffer.alloc(4);
  head.writeUInt32BE(entries.length);
  parts.push(head);
  for (const [k, v] of entries) {
    const kb = Buffer.from(k, 'utf8');
    const vb = Buffer.from(v ?? new Uint8Array());
    const len = Buffer.alloc(8);
    len.writeUInt32BE(kb.length, 0);
    len.writeUInt32BE(vb.length, 4);
    parts.push(len, kb, vb);
  }
  parts.push(Buffer.from(p.data ?? new Uint8Array()));
  return Buffer.concat(parts);
}

function deserialize(b: Buffer): Payload {
  let at = 0;
  const n = b.readUInt32BE(at);
  at += 4;
  const metadata: Record<string, Uint8Array> = {};
  for (let i = 0; i < n; i++) {
    const kl = b.readUInt32BE(at);
    const vl = b.readUInt32BE(at + 4);
    at += 8;
    const k = b.subarray(at, at + kl).toString('utf8');
    at += kl;
    metadata[k] = new Uint8Array(b.subarray(at, at + vl));
    at += vl;
  }
  return { metadata, data: new Uint8Array(b.subarray(at)) };
}

/**
 * Why a payload of another key cannot be read, naming both keys' ids and the fix; the same sentence from the
 * worker (the run fails), the `run` that resumes it (temporal/start.ts) and the workflow's refusal.
 */
export function sealedWithAnotherKey(payloadKeyId: string, ownKeyId: string): string {
  return (
    `${ANOTHER_KEY}${payloadKeyId}, but this process's key is ${ownKeyId}: the key file it was started with is not this one ` +
    `(lost, replaced, or another SCRAPE_ETL_KEY_FILE / data folder); give the worker and the command that key file again ` +
    `(SCRAPE_ETL_KEY_FILE), or start the run anew with \`scrape-etl run --new <file>\``
  );
}

/** What a payload we cannot open decodes to: JSON the workflow's seal check names in its refusal. */
function unreadable(reason: string): Payload {
  return {
    metadata: { encoding: te.encode('json/plain') },
    data: te.encode(JSON.stringify({ unreadablePayload: reason })),
  };
}

const VISIBLE_PREFIX = te.encode(`{"${VISIBLE_IN_UI_KEY}":`);

/**
 * A memo value wrapped by visibleInUi (temporal/contract.ts), as the bare value's plain JSON payload: the Web UI
 * reads memos without our key, so these few values (never data or secrets) are the one thing left in clear.
 */
function visibleInUiPayload(p: Payload): Payload | undefined {
  const encoding = p.metadata?.['encoding'];
  const data = p.data;
  if (!encoding || td.decode(encoding) !== 'json/plain' || !data || data.length < VISIBLE_PREFIX.length)
    return undefined;
  for (let i = 0; i < VISIBLE_PREFIX.length; i++) if (data[i] !== VISIBLE_PREFIX[i]) return undefined;
  const parsed = JSON.parse(td.decode(data)) as Record<string, unknown>;
  if (Object.keys(parsed).length !== 1) return undefined;
  return {
    metadata: { encoding: te.encode('json/plain') },
    data: te.encode(JSON.stringify(parsed[VISIBLE_IN_UI_KEY])),
  };
}

export class EncryptionCodec implements PayloadCodec {
  constructor(private readonly keys: SecretKeys) {}

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => {
      const visible = visibleInUiPayload(p);
      if (visible) return visible;
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', this.keys.encryption, iv);
      const body = Buffer.concat([cipher.update(serialize(p)), cipher.final()]);
      return {
        metadata: {
          encoding: te.encode(ENCRYPTED_ENCODING),
          'encryption-cipher': te.encode(CIPHER),
          'encryption-key-id': te.encode(this.keys.id),
        },
        data: new Uint8Array(Buffer.concat([iv, cipher.getAuthTag(), body])),
      };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => {
      const encoding = p.metadata?.['encoding'];
      if (!encoding || td.decode(encoding) !== ENCRYPTED_ENCODING) return p; // not encrypted: the seal check judges it
      const keyId = p.metadata?.['encryption-key-id'] ? td.decode(p.metadata['encryption-key-id']) : '?';
      if (keyId !== this.keys.id) return unreadable(sealedWithAnotherKey(keyId, this.keys.id));
      try {
        const data = Buffer.from(p.data ?? new Uint8Array());
        const decipher = createDecipheriv('aes-256-gcm', this.keys.encryption, data.subarray(0, IV_BYTES));
        decipher.setAuthTag(data.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
        return deserialize(Buffer.concat([decipher.update(data.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]));
      } catch {
        return unreadable('its encryption does not authenticate (tampered with, or not made with this key)');
      }
    });
  }
}

/** The data converter of every client and worker: this process's key file (SCRAPE_ETL_KEY_FILE or the data folder's). */
export function pipelineDataConverter(keys: SecretKeys = secretKeys()): DataConverter {
  return { payloadCodecs: [new EncryptionCodec(keys)] };
}
