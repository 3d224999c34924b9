import { isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';

/**
 * The address a request comes from, for rate limits. With `trustedProxyHops` 0 it is the TCP
 * peer: X-Forwarded-For is anyone's to write. Behind N proxies that each append the address they
 * saw, the client is the Nth entry from the right; entries further left were written by the
 * client itself and are never used. A malformed or too short header falls back to the peer.
 */
export function clientAddress(req: Pick<IncomingMessage, 'headers'> & { socket: { remoteAddress?: string } }, trustedProxyHops: number): string {
  const peer = normalize(req.socket.remoteAddress ?? '') ?? 'unknown';
  if (trustedProxyHops === 0) return peer;
  const header = req.headers['x-forwarded-for'];
  // Several X-Forwarded-For headers are joined in order, as proxies would have appended them.
  const joined = Array.isArray(header) ? header.join(',') : (header ?? '');
  if (joined.length > 2048) return peer;
  const hops = joined.split(',').map((entry) => entry.trim()).filter((entry) => entry.length > 0);
  const candidate = hops[hops.length - trustedProxyHops];
  return (candidate && normalize(candidate)) ?? peer;
}

/** `::ffff:1.2.3.4` → `1.2.3.4`; anything that is not an IP address → undefined. */
function normalize(address: string): string | undefined {
  const plain = address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
  return isIP(plain) === 0 ? undefined : plain.toLowerCase();
}
