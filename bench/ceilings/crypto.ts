/**
 * Crypto ceiling: RS256 sign and verify throughput of the signer the server
 * is meant to use — node:crypto's callback form of `sign`/`verify` (it runs
 * on libuv's threadpool) with a 2048-bit RSA KeyObject — with enough
 * operations in flight to keep both cores busy, each for DURATION seconds.
 * Then ES256 (P-256) signing the same way.
 * Prints one JSON line: { sign: Phase, verify: Phase, signEs256: Phase }.
 * Env: DURATION (seconds), IN_FLIGHT (default 64).
 */
import { generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';

interface Phase { ops: number; seconds: number; opsPerSecond: number; cpuCores: number; peakRssMb: number }

const duration = Number(process.env.DURATION ?? 10) * 1000;
const inFlight = Number(process.env.IN_FLIGHT ?? 64);
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const { privateKey: ecKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
// A typical JWT signing input: header.payload of an access token.
const data = Buffer.from(`${Buffer.from(JSON.stringify({ alg: 'RS256', typ: 'at+jwt', kid: 'k1' })).toString('base64url')}.${
  Buffer.from(JSON.stringify({ iss: 'http://127.0.0.1:8080', sub: '2', aud: 'demo-app', client_id: 'demo-app', scope: 'openid profile email',
    iat: 1700000000, exp: 1700003600, jti: '1.abcdefghijklmnop', auth_time: 1700000000 })).toString('base64url')}`);

function phase(op: (done: (error: Error | null) => void) => void): Promise<Phase> {
  return new Promise((resolve, reject) => {
    const cpuStart = process.cpuUsage();
    const started = performance.now();
    const deadline = started + duration;
    let peak = process.memoryUsage().rss;
    const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 100);
    let ops = 0;
    let pending = 0;
    let failed = false;
    const launch = () => {
      pending++;
      op((error) => {
        pending--;
        if (error) { failed = true; clearInterval(sampler); reject(error); return; }
        ops++;
        if (failed) return;
        if (performance.now() < deadline) launch();
        else if (pending === 0) {
          clearInterval(sampler);
          const seconds = (performance.now() - started) / 1000;
          const cpu = process.cpuUsage(cpuStart);
          resolve({ ops, seconds, opsPerSecond: ops / seconds, cpuCores: (cpu.user + cpu.system) / 1e6 / seconds, peakRssMb: peak / 1048576 });
        }
      });
    };
    for (let i = 0; i < inFlight; i++) launch();
  });
}

function signOnce(key: KeyObject): Promise<Buffer> {
  return new Promise((resolve, reject) => sign('sha256', data, key, (error, signature) => (error ? reject(error) : resolve(signature))));
}

const signature = await signOnce(privateKey);
const valid = await new Promise<boolean>((resolve, reject) =>
  verify('sha256', data, publicKey, signature, (error, ok) => (error ? reject(error) : resolve(ok))));
if (!valid) {
  process.stderr.write('crypto ceiling: a signature made by crypto.sign does not verify\n');
  process.exit(1);
}
const signPhase = await phase((done) => sign('sha256', data, privateKey, (error) => done(error)));
const verifyPhase = await phase((done) => verify('sha256', data, publicKey, signature, (error, ok) => done(error ?? (ok ? null : new Error('verify returned false')))));
const signEs256Phase = await phase((done) => sign('sha256', data, { key: ecKey, dsaEncoding: 'ieee-p1363' }, (error) => done(error)));
process.stdout.write(`${JSON.stringify({ sign: signPhase, verify: verifyPhase, signEs256: signEs256Phase })}\n`);
