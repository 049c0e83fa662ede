// The Twitch chat in the end-to-end suite (issue 36): the Twitch-like IRC
// server of crates/twitch-like (its binary, built by e2e.sh), on loopback with
// its own test CA, since the test machines have no internet. The app is a
// test-net build (e2e.sh), so the environment `env` gives it makes Twitch's
// real name and port (irc.chat.twitch.tv:6697) lead to this server and its CA
// trusted, as the network tests do. Driven through the binary's standard
// input (`say …`), read through its standard output (`joined #x`, `said ID`).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { env, track, until } from './lib.mjs';

/** Twitch's IRC interface as the app connects to it (dcp_host::TWITCH_HOST, TWITCH_PORT). */
const TWITCH = { host: 'irc.chat.twitch.tv', port: 6697 };
/** The address the test DNS gives Twitch's name: a public one, as a real answer is (the app refuses a private one). */
const PUBLIC_IP = '93.184.216.34';

/**
 * Starts `twitch-like`; resolves once it listens with { port, env, lines(), joined(channel), say(…) , stop() }.
 * `env` holds the DCPLUGIN_TEST_* variables for the app.
 */
export async function startTwitchLike() {
  if (!env.twitchLike) throw new Error('E2E_TWITCH_LIKE not set: run scripts/lib/e2e.sh');
  const ca = path.join(env.tmp, 'twitch-like-ca.pem');
  const child = track(spawn(env.twitchLike, ['--ca-out', ca], { stdio: ['pipe', 'pipe', 'pipe'] }));
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const lines = () => out.split('\n').filter(Boolean);
  const port = await until('twitch-like listening (its address on standard output)', async () => {
    if (child.exitCode !== null) throw new Error(`twitch-like ended (${child.exitCode}): ${err.trim().slice(0, 300)}`);
    const first = /^listening 127\.0\.0\.1:(\d+)$/.exec(lines()[0] ?? '');
    return out.includes('\n') && first ? Number(first[1]) : false;
  }, 10_000);
  return {
    port,
    env: {
      DCPLUGIN_TEST_DNS: `${TWITCH.host}=${PUBLIC_IP}`,
      DCPLUGIN_TEST_CONNECT: `${PUBLIC_IP}:${TWITCH.port}=127.0.0.1:${port}`,
      DCPLUGIN_TEST_CA: ca,
    },
    lines,
    /** Waits until a connection joined #channel (the n-th join of it, counting from 1). */
    joined: (channel, n = 1, ms = 30_000) => until(`a connection joined #${channel}`, async () =>
      lines().filter((l) => l === `joined #${channel}`).length >= n, ms),
    /** A viewer's message in #channel, with Twitch's real tags; resolves with its id. */
    async say(channel, login, display, words) {
      const before = lines().filter((l) => l.startsWith('said ')).length;
      child.stdin.write(`say ${channel} ${login} ${display} ${words}\n`);
      return until('the viewer\'s message sent', async () => {
        if (err.trim()) throw new Error(`twitch-like: ${err.trim().slice(0, 300)}`);
        const said = lines().filter((l) => l.startsWith('said '));
        return said.length > before ? said[before].slice('said '.length) : false;
      }, 5_000);
    },
    /** Closes its standard input (it ends) and waits for it. */
    async stop() {
      if (child.exitCode !== null) return;
      const ended = new Promise((resolve) => child.on('exit', resolve));
      child.stdin.end();
      await ended;
    },
  };
}
