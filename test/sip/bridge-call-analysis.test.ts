/**
 * What `npm run test:sip` reads off a captured call (scripts/sip-call): the pcap reader and the
 * checks, on calls built packet by packet (the real captures need livekit-sip, which CI lacks).
 */
import { describe, expect, it } from 'vitest';
import { analyzeCall } from '../../scripts/sip-call/call-analysis.js';
import { encodeMulaw, linearToMulaw, mulawToLinear } from '../../scripts/sip-call/g711.js';
import { readPcap } from '../../scripts/sip-call/pcap.js';
import { uacScenario } from '../../scripts/sip-call/scenario.js';

const BRIDGE = { ip: '10.213.0.1', sip: 5060, rtp: 10_004 };
const PHONE = { ip: '10.213.0.2', sip: 5070, rtp: 6000 };

interface Packet {
  ms: number;
  src: [string, number];
  dst: [string, number];
  payload: Buffer;
}

const ipBytes = (ip: string) => ip.split('.').map(Number);

/** An Ethernet + IPv4 + UDP frame, as tcpdump writes a namespace's loopback. */
function ethernetFrame(p: Packet): Buffer {
  const udp = Buffer.alloc(8);
  udp.writeUInt16BE(p.src[1], 0);
  udp.writeUInt16BE(p.dst[1], 2);
  udp.writeUInt16BE(8 + p.payload.length, 4);
  const ip = Buffer.alloc(20);
  ip[0] = 0x45;
  ip.writeUInt16BE(20 + 8 + p.payload.length, 2);
  ip[8] = 64;
  ip[9] = 17;
  Buffer.from(ipBytes(p.src[0])).copy(ip, 12);
  Buffer.from(ipBytes(p.dst[0])).copy(ip, 16);
  const eth = Buffer.alloc(14);
  eth.writeUInt16BE(0x0800, 12);
  return Buffer.concat([eth, ip, udp, p.payload]);
}

/** Linux cooked v2 (`tcpdump -i any`): protocol first, 20 bytes of header. */
function sll2Frame(p: Packet): Buffer {
  const header = Buffer.alloc(20);
  header.writeUInt16BE(0x0800, 0);
  return Buffer.concat([header, ethernetFrame(p).subarray(14)]);
}

function pcap(packets: Packet[], linkType = 1, frame = ethernetFrame): Buffer {
  const header = Buffer.alloc(24);
  header.writeUInt32LE(0xa1b2c3d4, 0);
  header.writeUInt16LE(2, 4);
  header.writeUInt16LE(4, 6);
  header.writeUInt32LE(262_144, 16);
  header.writeUInt32LE(linkType, 20);
  const records = packets.map((p) => {
    const data = frame(p);
    const record = Buffer.alloc(16);
    const micros = Math.round(p.ms * 1000);
    record.writeUInt32LE(Math.floor(micros / 1e6), 0);
    record.writeUInt32LE(micros % 1e6, 4);
    record.writeUInt32LE(data.length, 8);
    record.writeUInt32LE(data.length, 12);
    return Buffer.concat([record, data]);
  });
  return Buffer.concat([header, ...records]);
}

const T0 = 1_800_000_000_000;

function sip(ms: number, fromPhone: boolean, firstLine: string, cseq: string, sdpPort?: number): Packet {
  const sdp = sdpPort === undefined ? '' : `v=0\r\nc=IN IP4 ${fromPhone ? PHONE.ip : BRIDGE.ip}\r\nm=audio ${sdpPort} RTP/AVP 0 101\r\n`;
  const text = `${firstLine}\r\nCall-ID: 1-1@${PHONE.ip}\r\nCSeq: ${cseq}\r\nContent-Length: ${sdp.length}\r\n\r\n${sdp}`;
  const phone: [string, number] = [PHONE.ip, PHONE.sip];
  const bridge: [string, number] = [BRIDGE.ip, BRIDGE.sip];
  return { ms: T0 + ms, src: fromPhone ? phone : bridge, dst: fromPhone ? bridge : phone, payload: Buffer.from(text, 'latin1') };
}

const tones = new Map<number, Buffer>();
/** 20 ms of a 440 Hz tone at `amplitude` (0: silence), µ-law coded. */
function tone(amplitude: number): Buffer {
  let coded = tones.get(amplitude);
  if (!coded) {
    coded = encodeMulaw(Int16Array.from({ length: 160 }, (_, i) => Math.round(amplitude * Math.sin((2 * Math.PI * 440 * i) / 8000))));
    tones.set(amplitude, coded);
  }
  return coded;
}

/** One PCMU RTP packet of 20 ms. */
function rtp(ms: number, toPhone: boolean, amplitude: number, seq: number): Packet {
  const header = Buffer.alloc(12);
  header[0] = 0x80;
  header[1] = 0;
  header.writeUInt16BE(seq & 0xffff, 2);
  const phone: [string, number] = [PHONE.ip, PHONE.rtp];
  const bridge: [string, number] = [BRIDGE.ip, BRIDGE.rtp];
  return { ms: T0 + ms, src: toPhone ? bridge : phone, dst: toPhone ? phone : bridge, payload: Buffer.concat([header, tone(amplitude)]) };
}

/** Packets every 20 ms over [fromMs, toMs), loud or quiet. */
function stream(toPhone: boolean, fromMs: number, toMs: number, loud: (ms: number) => boolean): Packet[] {
  const out: Packet[] = [];
  for (let ms = fromMs, seq = 0; ms < toMs; ms += 20, seq++) out.push(rtp(ms, toPhone, loud(ms) ? 8000 : 0, seq));
  return out;
}

interface CallShape {
  okMs?: number;
  greeting?: [number, number];
  callerSpeech: [number, number];
  answer?: [number, number];
  byeOk?: boolean;
}

/** INVITE at 0, 200 OK at `okMs`, the agent's sound and the caller's speech where given, BYE at 20 s. */
function call(shape: CallShape): Buffer {
  const ok = shape.okMs ?? 500;
  const within = (range: [number, number] | undefined, ms: number) => range !== undefined && ms >= range[0] && ms < range[1];
  const packets = [
    sip(0, true, `INVITE sip:+15550100@${BRIDGE.ip}:5060 SIP/2.0`, '1 INVITE', PHONE.rtp),
    sip(2, false, 'SIP/2.0 100 Processing', '1 INVITE'),
    sip(ok, false, 'SIP/2.0 200 OK', '1 INVITE', BRIDGE.rtp),
    sip(ok + 2, true, `ACK sip:${BRIDGE.ip}:5060 SIP/2.0`, '1 ACK'),
    ...stream(true, 60, 20_000, (ms) => within(shape.greeting, ms) || within(shape.answer, ms)),
    ...stream(false, ok + 10, 19_000, (ms) => within(shape.callerSpeech, ms)),
    sip(20_000, true, `BYE sip:${BRIDGE.ip}:5060 SIP/2.0`, '2 BYE'),
  ];
  if (shape.byeOk ?? true) packets.push(sip(20_003, false, 'SIP/2.0 200 OK', '2 BYE'));
  return pcap(packets.sort((a, b) => a.ms - b.ms));
}

const analyze = (file: Buffer) => analyzeCall(readPcap(file), { sipPort: BRIDGE.sip });

describe('the pcap reader', () => {
  it('reads UDP datagrams with their capture times from Ethernet and Linux cooked v2 captures', () => {
    const packets = [sip(0, true, 'INVITE sip:x@y SIP/2.0', '1 INVITE', PHONE.rtp), rtp(20.5, true, 1000, 1)];
    for (const file of [pcap(packets), pcap(packets, 276, sll2Frame)]) {
      const read = readPcap(file);
      expect(read.map((d) => [d.ms - T0, d.src, d.srcPort, d.dst, d.dstPort])).toEqual([
        [0, PHONE.ip, PHONE.sip, BRIDGE.ip, BRIDGE.sip],
        [20.5, BRIDGE.ip, BRIDGE.rtp, PHONE.ip, PHONE.rtp],
      ]);
      expect(read[1]!.payload.length).toBe(12 + 160);
    }
  });

  it('ignores a record cut short by a capture stopped mid-write', () => {
    const whole = pcap([rtp(0, true, 0, 1), rtp(20, true, 0, 2)]);
    expect(readPcap(whole.subarray(0, whole.length - 5))).toHaveLength(1);
  });

  it('refuses what is not a pcap file', () => {
    expect(() => readPcap(Buffer.alloc(64, 7))).toThrow(/not a pcap/);
  });
});

describe("a captured call's figures", () => {
  it('times the greeting from the 200 OK and the answer from the end of the caller speech', () => {
    const figures = analyze(call({ okMs: 500, greeting: [1200, 3400], callerSpeech: [6500, 8500], answer: [9300, 11_000] }));
    expect(figures.failures).toEqual([]);
    expect(figures.answeredAfterMs).toBe(500);
    expect(figures.greetingMs).toBeCloseTo(700 + 0, -1);
    expect(figures.greetingSoundMs).toBeGreaterThanOrEqual(2000);
    expect(figures.callerSpeech?.startMs).toBeCloseTo(6000, -2);
    expect(figures.answerMs).toBeGreaterThan(750);
    expect(figures.answerMs).toBeLessThan(900);
    expect(figures.byeCompleted).toBe(true);
  });

  it('fails a call whose caller heard only silence', () => {
    const figures = analyze(call({ callerSpeech: [6500, 8500] }));
    expect(figures.greetingMs).toBeUndefined();
    expect(figures.failures.join()).toMatch(/no speech energy reached the caller/);
  });

  it("fails a call whose caller's speech was not answered, even while the greeting ran into it", () => {
    const figures = analyze(call({ greeting: [1000, 8600], callerSpeech: [6500, 8500] }));
    expect(figures.greetingMs).toBeDefined();
    expect(figures.answerMs).toBeUndefined();
    expect(figures.failures.join()).toMatch(/not answered/);
  });

  it('does not count sound that only started after the caller spoke as a greeting', () => {
    const figures = analyze(call({ greeting: [7000, 9000], callerSpeech: [6500, 8500] }));
    expect(figures.failures.join()).toMatch(/no greeting/);
  });

  it('fails a call whose BYE was never answered, and one that was never picked up', () => {
    expect(analyze(call({ greeting: [1200, 3000], callerSpeech: [6500, 8500], answer: [9300, 11_000], byeOk: false })).failures).toEqual([
      'the BYE got no 200 OK',
    ]);
    const unanswered = pcap([sip(0, true, 'INVITE sip:x@y SIP/2.0', '1 INVITE', PHONE.rtp), sip(5, false, 'SIP/2.0 180 Ringing', '1 INVITE')]);
    expect(analyze(unanswered).failures).toEqual(['no 200 OK to the INVITE']);
  });
});

describe('the phone', () => {
  it('codes µ-law both ways within the codec step', () => {
    for (const s of [0, 1, -1, 100, -100, 1000, -5000, 32_767, -32_768]) {
      expect(Math.abs(mulawToLinear(linearToMulaw(s)) - Math.max(-32_124, Math.min(32_124, s)))).toBeLessThanOrEqual(Math.max(4, Math.abs(s) / 16));
    }
  });

  it('offers PCMU only (and RFC 4733 events), streams the file and hangs up after the hold', () => {
    const xml = uacScenario({ audioFile: '/tmp/q.ul', holdMs: 16_639.4, callerNumber: '+15550123456' });
    expect(xml).toContain('m=audio [media_port] RTP/AVP 0 101');
    expect(xml).toContain('<exec rtp_stream="/tmp/q.ul,1,0"/>');
    expect(xml).toContain('<pause milliseconds="16639"/>');
    expect(xml.indexOf('BYE [next_url]')).toBeGreaterThan(xml.indexOf('rtp_stream'));
    expect(() => uacScenario({ audioFile: '/tmp/a"b.ul', holdMs: 1, callerNumber: '+1555' })).toThrow();
    expect(() => uacScenario({ audioFile: '/tmp/q.ul', holdMs: 1, callerNumber: 'sip:evil' })).toThrow();
  });
});
