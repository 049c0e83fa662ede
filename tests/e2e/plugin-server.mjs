// The Exchange rates plugin's site in the end-to-end suite (issue 36): an
// HTTPS server on loopback answering GET /v1/latest?base=&symbols=&amount=
// as api.frankfurter.dev does (the JSON the plugin's response picks:
// amount, base, date, rates), since the test machines have no internet.
// Its CA and certificate are made at run time with openssl; the app (a
// test-net build, e2e.sh) reaches it through the DCPLUGIN_TEST_* variables
// of `env` (testNetEnv in lib.mjs merges them with the Twitch-like's), so
// the plugin's real host name and port 443 lead here and the CA is trusted.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { env } from './lib.mjs';

/** The Exchange rates plugin's host (plugins-examples/exchange-rates/manifest.json). */
export const FX_HOST = 'api.frankfurter.dev';
/** The address the test DNS gives that name: a public one, as a real answer is (the app refuses a private one). */
const PUBLIC_IP = '93.184.216.35';
/** The date every answer carries, as the real site's carry the reference day. */
const DATE = '2026-12-04';
/** Reference rates per euro; a cross rate goes through the euro, as the ECB's data does. */
const PER_EURO = { EUR: 1, JPY: 170.63, USD: 1.0842, GBP: 0.8571 };

/** A CA and a certificate for FX_HOST signed by it, in `dir`: { caPem, key, cert } (paths, contents). */
function makeCertificates(dir) {
  const file = (name) => path.join(dir, name);
  const ssl = (...args) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  ssl('req', '-x509', ...ec, '-keyout', file('ca.key'), '-out', file('ca.pem'), '-days', '2',
    '-subj', '/CN=dcplugin e2e plugin-server CA');
  ssl('req', '-new', ...ec, '-keyout', file('site.key'), '-out', file('site.csr'), '-subj', `/CN=${FX_HOST}`);
  // The leaf as webpki accepts it: the name in subjectAltName, not a CA, for servers.
  fs.writeFileSync(file('site.ext'),
    `subjectAltName=DNS:${FX_HOST}\nbasicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n`);
  ssl('x509', '-req', '-in', file('site.csr'), '-CA', file('ca.pem'), '-CAkey', file('ca.key'), '-set_serial', '2',
    '-days', '2', '-extfile', file('site.ext'), '-out', file('site.pem'));
  return { caPem: file('ca.pem'), key: fs.readFileSync(file('site.key')), cert: fs.readFileSync(file('site.pem')) };
}

/** The site's answer to one request: [status, JSON body]. */
function answer(method, url) {
  if (method !== 'GET' || url.pathname !== '/v1/latest') return [404, { message: 'not found' }];
  const base = url.searchParams.get('base') ?? 'EUR';
  const symbols = (url.searchParams.get('symbols') ?? '').split(',').filter(Boolean);
  const amount = Number(url.searchParams.get('amount') ?? '1');
  if (!(base in PER_EURO) || symbols.some((s) => !(s in PER_EURO)) || !(amount >= 0)) return [404, { message: 'not found' }];
  // Six significant digits: the number the AI reads is 3412.6, without a float's tail.
  const rates = Object.fromEntries(symbols.map((s) => [s, Number(((amount * PER_EURO[s]) / PER_EURO[base]).toPrecision(6))]));
  return [200, { amount, base, date: DATE, rates }];
}

/**
 * Starts the site on 127.0.0.1 (a free port); resolves with
 * { port, env, requests(), rate(from, to, amount), stop() }. `requests()`: every request
 * received so far ({ method, path, query, host }), in order.
 */
export async function startPluginServer() {
  const dir = fs.mkdtempSync(path.join(env.tmp, 'plugin-server-'));
  const { caPem, key, cert } = makeCertificates(dir);
  const received = [];
  const server = https.createServer({ key, cert }, (req, res) => {
    const url = new URL(req.url, `https://${FX_HOST}`);
    received.push({ method: req.method, path: url.pathname, query: Object.fromEntries(url.searchParams), host: req.headers.host });
    const [status, body] = answer(req.method, url);
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();
  return {
    port,
    env: {
      DCPLUGIN_TEST_DNS: `${FX_HOST}=${PUBLIC_IP}`,
      DCPLUGIN_TEST_CONNECT: `${PUBLIC_IP}:443=127.0.0.1:${port}`,
      DCPLUGIN_TEST_CA: caPem,
    },
    requests: () => received.slice(),
    /** What the site answers for `amount` `from` in `to` (the number a test expects the AI to read). */
    rate: (from, to, amount) => answer('GET', new URL(`https://${FX_HOST}/v1/latest?base=${from}&symbols=${to}&amount=${amount}`))[1].rates[to],
    stop: () => new Promise((resolve) => server.close(resolve)),
  };
}
