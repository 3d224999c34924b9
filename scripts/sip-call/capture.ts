/**
 * A packet capture inside the stack's namespace (tcpdump, as the phone's network card would
 * see it), started before the call and stopped after it. Ready once tcpdump says it listens.
 */
import { spawn } from 'node:child_process';
import { inNamespace } from '../stack/netns.js';

export interface Capture {
  /** SIGINT (tcpdump then writes out what it holds), and waits for it to exit. */
  stop(): Promise<void>;
}

export function startCapture(namespace: string, file: string, filter: string): Promise<Capture> {
  // -U: each packet goes to the file as it arrives; -i any: loopback and both veth ends.
  const [cmd, args] = inNamespace(namespace, 'tcpdump', ['-i', 'any', '-n', '-U', '-s', '0', '-w', file, filter]);
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
          child.kill('SIGINT');
          const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
          await exited;
          clearTimeout(killer);
        },
      });
    });
  });
}
