// TLS and API-key settings for a Temporal cluster (Temporal Cloud or a self-hosted one behind TLS), read from the
// SDK's environment-configuration names, and what reaches the wire: a stand-in gRPC endpoint (node:http2, over
// TLS with a throwaway certificate, or plain) records the handshake and the Authorization header that the CLI's
// connection and the worker's connection send.
import fs from 'node:fs';
import http2 from 'node:http2';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTemporal } from '../../../temporal/connect.js';
import { listenOnLoopback, makeTestCertificates } from '../../support/tls-test-server.js';
import { temporalConnectionSecurity, temporalSettings } from '../../../temporal/settings.js';
import { connectWorker } from '../../../temporal/worker.js';

let dir: string;
let ca: string;
let cert: string;
let key: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scrape-etl-tls-'));
  ({ ca, cert, key } = makeTestCertificates(dir));
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A gRPC endpoint that answers every call UNAUTHENTICATED (not retried) and records the authorization header of each. */
async function standIn(tls: boolean): Promise<{ address: string; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = [];
  const server = tls
    ? http2.createSecureServer({ cert: fs.readFileSync(cert), key: fs.readFileSync(key), allowHTTP1: false })
    : http2.createServer();
  server.on('stream', (stream, headers) => {
    seen.push(String(headers['authorization'] ?? ''));
    stream.respond(
      { ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '16', 'grpc-message': 'stand-in' },
      { endStream: true },
    );
  });
  const listening = await listenOnLoopback(server);
  return { address: listening.address, seen, close: listening.close };
}

describe('Temporal connection settings (TLS, API key)', () => {
  it('plain gRPC by default; an API key turns TLS on unless TEMPORAL_TLS=false; mTLS files are read', () => {
    const plain = temporalSettings({ TEMPORAL_ADDRESS: '127.0.0.1:7233' });
    expect(plain.tls).toBeUndefined();
    expect(plain.apiKey).toBeUndefined();
    expect(temporalConnectionSecurity(plain)).toEqual({});

    const cloud = temporalSettings({
      TEMPORAL_ADDRESS: 'eu-west-1.aws.api.temporal.io:7233',
      TEMPORAL_NAMESPACE: 'acme.a1b2c',
      TEMPORAL_API_KEY: 'k-1',
    });
    expect(cloud).toMatchObject({ namespace: 'acme.a1b2c', tls: {}, apiKey: 'k-1' });
    expect(temporalConnectionSecurity(cloud)).toEqual({ tls: {}, apiKey: 'k-1' });
    const plainKey = temporalSettings({ TEMPORAL_ADDRESS: 'h:1', TEMPORAL_API_KEY: 'k', TEMPORAL_TLS: 'false' });
    expect(plainKey.tls).toBeUndefined();
    // Said to the SDK too: given an API key and no TLS setting, it turns TLS on by itself.
    expect(temporalConnectionSecurity(plainKey)).toEqual({ tls: false, apiKey: 'k' });

    const mtls = temporalSettings({
      TEMPORAL_ADDRESS: 'acme.a1b2c.tmprl.cloud:7233',
      TEMPORAL_TLS_CLIENT_CERT_PATH: cert,
      TEMPORAL_TLS_CLIENT_KEY_PATH: key,
      TEMPORAL_TLS_SERVER_NAME: 'temporal.test',
    });
    const sec = temporalConnectionSecurity(mtls) as {
      tls?: { serverNameOverride?: string; clientCertPair?: { crt: Buffer; key: Buffer } };
      apiKey?: string;
    };
    expect(sec.tls?.serverNameOverride).toBe('temporal.test');
    expect(sec.tls?.clientCertPair?.crt.toString()).toBe(fs.readFileSync(cert, 'utf8'));
    expect(sec.tls?.clientCertPair?.key.toString()).toBe(fs.readFileSync(key, 'utf8'));
    expect(sec.apiKey).toBeUndefined();
  });

  it('rejects incomplete or contradictory settings, naming the variables', () => {
    expect(() => temporalSettings({ TEMPORAL_ADDRESS: 'h:1', TEMPORAL_TLS_CLIENT_CERT_PATH: cert })).toThrow(
      /TEMPORAL_TLS_CLIENT_KEY_PATH/,
    );
    expect(() => temporalSettings({ TEMPORAL_API_KEY: 'k' })).toThrow(/TEMPORAL_ADDRESS/);
    expect(() => temporalSettings({ TEMPORAL_ADDRESS: 'h:1', TEMPORAL_TLS: 'yes' })).toThrow(
      /TEMPORAL_TLS must be true or false/,
    );
    expect(() =>
      temporalSettings({ TEMPORAL_ADDRESS: 'h:1', TEMPORAL_TLS: 'false', TEMPORAL_TLS_SERVER_CA_CERT_PATH: cert }),
    ).toThrow(/contradicts/);
    const missing = temporalSettings({
      TEMPORAL_ADDRESS: 'h:1',
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: path.join(dir, 'nope.pem'),
    });
    expect(() => temporalConnectionSecurity(missing)).toThrow(/TEMPORAL_TLS_SERVER_CA_CERT_PATH .*nope\.pem/);
  });

  it('the CLI and the worker connect over TLS, trusting the given CA, and send the API key', async () => {
    const server = await standIn(true);
    try {
      const settings = temporalSettings({
        TEMPORAL_ADDRESS: server.address,
        TEMPORAL_API_KEY: 'secret-key',
        TEMPORAL_TLS_SERVER_CA_CERT_PATH: ca,
        TEMPORAL_TLS_SERVER_NAME: 'temporal.test',
      });
      // The stand-in answers UNAUTHENTICATED, so the connections fail after their first call, which reached it over TLS.
      await expect(connectTemporal({ settings })).rejects.toThrow(/cannot connect to Temporal/);
      await expect(connectWorker(settings)).rejects.toThrow(/cannot connect the worker/);
      expect(server.seen.length).toBeGreaterThanOrEqual(2);
      expect(new Set(server.seen)).toEqual(new Set(['Bearer secret-key']));
    } finally {
      await server.close();
    }
  }, 60_000);

  it('without TLS settings the connection is plain gRPC and carries no Authorization header', async () => {
    const server = await standIn(false);
    try {
      const settings = temporalSettings({ TEMPORAL_ADDRESS: server.address });
      await expect(connectTemporal({ settings })).rejects.toThrow(/cannot connect to Temporal/);
      expect(server.seen.length).toBeGreaterThanOrEqual(1);
      expect(new Set(server.seen)).toEqual(new Set(['']));
    } finally {
      await server.close();
    }
  }, 60_000);
});
