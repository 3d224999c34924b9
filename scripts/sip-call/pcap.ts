/**
 * The UDP datagrams of a classic pcap file (what `tcpdump -w` writes): enough to read a SIP
 * call's signalling and RTP off the wire. Link types: Ethernet (a namespace's loopback and
 * veths), Linux cooked v1/v2 (`-i any`) and raw IP. IPv4 only: the stack's network is IPv4.
 */

export interface UdpDatagram {
  /** Capture time, ms since the epoch (microsecond resolution). */
  ms: number;
  src: string;
  srcPort: number;
  dst: string;
  dstPort: number;
  payload: Buffer;
}

const LINKTYPE_ETHERNET = 1;
const LINKTYPE_RAW = 101;
const LINKTYPE_LINUX_SLL = 113;
const LINKTYPE_LINUX_SLL2 = 276;
const ETHERTYPE_IPV4 = 0x0800;
const IPPROTO_UDP = 17;

/** Offset of the IPv4 header in a frame, or -1 when the frame carries something else. */
function ipv4Offset(frame: Buffer, linkType: number): number {
  switch (linkType) {
    case LINKTYPE_ETHERNET:
      return frame.length >= 14 && frame.readUInt16BE(12) === ETHERTYPE_IPV4 ? 14 : -1;
    case LINKTYPE_LINUX_SLL:
      return frame.length >= 16 && frame.readUInt16BE(14) === ETHERTYPE_IPV4 ? 16 : -1;
    case LINKTYPE_LINUX_SLL2:
      return frame.length >= 20 && frame.readUInt16BE(0) === ETHERTYPE_IPV4 ? 20 : -1;
    case LINKTYPE_RAW:
      return frame.length >= 1 && frame[0]! >> 4 === 4 ? 0 : -1;
    default:
      throw new Error(`pcap link type ${linkType} is not supported`);
  }
}

const dotted = (b: Buffer, at: number): string => `${b[at]}.${b[at + 1]}.${b[at + 2]}.${b[at + 3]}`;

function udpOf(frame: Buffer, linkType: number, ms: number): UdpDatagram | undefined {
  const ip = ipv4Offset(frame, linkType);
  if (ip < 0 || frame.length < ip + 20) return undefined;
  const headerLength = (frame[ip]! & 0x0f) * 4;
  // Fragments never carry a whole call's packet here (RTP and SIP stay under the MTU).
  if (frame[ip + 9] !== IPPROTO_UDP || (frame.readUInt16BE(ip + 6) & 0x3fff) !== 0) return undefined;
  const udp = ip + headerLength;
  if (frame.length < udp + 8) return undefined;
  const length = frame.readUInt16BE(udp + 4);
  return {
    ms,
    src: dotted(frame, ip + 12),
    dst: dotted(frame, ip + 16),
    srcPort: frame.readUInt16BE(udp),
    dstPort: frame.readUInt16BE(udp + 2),
    payload: frame.subarray(udp + 8, Math.min(frame.length, udp + length)),
  };
}

export function readPcap(file: Buffer): UdpDatagram[] {
  if (file.length < 24) return [];
  const magic = file.readUInt32LE(0);
  const little = magic === 0xa1b2c3d4 || magic === 0xa1b23c4d;
  if (!little && file.readUInt32BE(0) !== 0xa1b2c3d4 && file.readUInt32BE(0) !== 0xa1b23c4d) {
    throw new Error('not a pcap file (pcapng is not read; tcpdump -w writes pcap)');
  }
  const u32 = (at: number) => (little ? file.readUInt32LE(at) : file.readUInt32BE(at));
  const nanos = (little ? magic : file.readUInt32BE(0)) === 0xa1b23c4d;
  const linkType = u32(20) & 0x0fffffff;
  const out: UdpDatagram[] = [];
  // A capture stopped mid-write ends in a partial record: read whole records only.
  for (let at = 24; at + 16 <= file.length; ) {
    const ms = u32(at) * 1000 + u32(at + 4) / (nanos ? 1e6 : 1e3);
    const captured = u32(at + 8);
    const end = at + 16 + captured;
    if (end > file.length) break;
    const datagram = udpOf(file.subarray(at + 16, end), linkType, ms);
    if (datagram) out.push(datagram);
    at = end;
  }
  return out;
}
