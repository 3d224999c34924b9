/**
 * A packet capture inside the stack's namespace (tcpdump, as the phone's network card would
 * see it), started before the call and stopped after it. Ready once tcpdump says it listens.
 */
import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { inNamespace } from '../stack/netns.js';

export interface Capture {
  /** SIGINT (tcpdump then writes out what it holds), and waits for it to exit. */
  stop(): Promise<void>;
}

const size = (file: string) => {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
};

/**
 * Until the file has not grown for a second (bounded): on a loaded machine tcpdump may still be
 * writing the call's last packets when the phone has already hung up.
 */
async function settled(file: string, quietMs = 1000, boundMs = 10_000): Promise<void> {
  const deadline = Date.now() + boundMs;
  let last = size(file);
  let quietSince = Date.now();
  while (Date.now() < deadline && Date.now() - quietSince < quietMs) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = size(file);
    if (now !== last) [last, quietSince] = [now, Date.now()];
  }
}

export function startCapture(namespace: string, file: string, filter: string): Promise<Capture> {
  // --immediate-mode: libpcap otherwise hands packets over in blocks (up to a second late), and
  // a SIGINT loses the block in hand (the BYE, once); -U: each packet goes to the file at once;
  // -i any: loopback and both veth ends.
  const [cmd, args] = inNamespace(namespace, 'tcpdump', ['-i', 'any', '-n', '--immediate-mode', '-U', '-s', '0', '-w', file, filter]);
  const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  let stderr = '';
  return new Promise<Capture>((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`tcpdump did not start listening in 15 s: ${stderr.trim()}`)), 15_000);
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    };
    child.once('error', fail);
    void exited.then(() => fail(new Error(`tcpdump exited: ${stderr.trim()}`)));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (!stderr.includes('listening on')) return;
      clearTimeout(timer);
      resolve({
        async stop() {
          await settled(file);
          child.kill('SIGINT');
          const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
          await exited;
          clearTimeout(killer);
        },
      });
    });
  });
}
