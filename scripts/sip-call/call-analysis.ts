/**
 * What one captured phone call shows, on the wire's clock: when the bridge picked up (the 200 OK
 * to the INVITE), when the caller first heard speech energy (the greeting), whether the agent
 * spoke again after the caller's own speech ended (the answer), and whether the hang-up
 * completed (a 200 OK to the BYE). PCMU only: the caller offers nothing else.
 */
import { mulawToLinear } from './g711.js';
import type { UdpDatagram } from './pcap.js';

/** RMS (of 32767) over which a 20 ms packet counts as sound: the room tests' threshold. */
export const LOUD_RMS = 300;
/** Quiet before a loud packet that makes it a new onset (the answer, not the greeting's tail). */
export const ONSET_GAP_MS = 200;
/** The greeting must carry at least this much sound before the caller speaks. */
export const MIN_GREETING_SOUND_MS = 400;

const PCMU = 0;

export interface RtpPacket {
  ms: number;
  rms: number;
  durationMs: number;
}

/** A PCMU RTP packet's loudness, or undefined for anything else (RTCP, DTMF events, other codecs). */
export function pcmuPacket(d: UdpDatagram): RtpPacket | undefined {
  const p = d.payload;
  if (p.length < 12 || p[0]! >> 6 !== 2 || (p[1]! & 0x7f) !== PCMU) return undefined;
  const csrcs = p[0]! & 0x0f;
  let start = 12 + 4 * csrcs;
  if (p[0]! & 0x10) start += 4 + 4 * p.readUInt16BE(start + 2);
  const end = p[0]! & 0x20 ? p.length - p[p.length - 1]! : p.length;
  if (end <= start) return undefined;
  let sum = 0;
  for (let i = start; i < end; i++) sum += mulawToLinear(p[i]!) ** 2;
  return { ms: d.ms, rms: Math.sqrt(sum / (end - start)), durationMs: (end - start) / 8 };
}

interface SipMessage {
  ms: number;
  firstLine: string;
  cseqMethod: string;
  /** Where the SDP body, if any, asks for audio: `c=` address and `m=audio` port. */
  media?: { address: string; port: number };
}

function sipMessage(d: UdpDatagram): SipMessage | undefined {
  const text = d.payload.toString('latin1');
  const firstLine = text.slice(0, text.indexOf('\r\n'));
  if (!/^(SIP\/2\.0 \d{3}|[A-Z]+ \S+ SIP\/2\.0)/.test(firstLine)) return undefined;
  const cseq = /^CSeq:\s*\d+\s+([A-Z]+)/im.exec(text);
  const address = /^c=IN IP4 (\S+)/m.exec(text)?.[1];
  const port = /^m=audio (\d+) /m.exec(text)?.[1];
  const media = address && port ? { address, port: Number(port) } : undefined;
  return { ms: d.ms, firstLine, cseqMethod: cseq?.[1] ?? '', media };
}

export interface CallEndpoints {
  /** The bridge's SIP port (its UDP signalling). */
  sipPort: number;
}

const toward = (media: SipMessage['media']) => (d: UdpDatagram) => media !== undefined && d.dst === media.address && d.dstPort === media.port;

export interface CallFigures {
  /** INVITE sent → 200 OK received. */
  answeredAfterMs?: number;
  /** 200 OK → first packet at the caller with speech energy. */
  greetingMs?: number;
  /** Sound the caller heard from the greeting's onset until they started to speak. */
  greetingSoundMs: number;
  /** The caller's own speech on the wire: first and last loud packet, ms after the 200 OK. */
  callerSpeech?: { startMs: number; endMs: number };
  /** The caller's speech ended → the agent's next onset at the caller. */
  answerMs?: number;
  byeCompleted: boolean;
  failures: string[];
}

const loud = (p: RtpPacket) => p.rms >= LOUD_RMS;

export function analyzeCall(datagrams: UdpDatagram[], at: CallEndpoints): CallFigures {
  const sip = datagrams.filter((d) => d.srcPort === at.sipPort || d.dstPort === at.sipPort).flatMap((d) => sipMessage(d) ?? []);
  const invite = sip.find((m) => m.firstLine.startsWith('INVITE '));
  const ok = sip.find((m) => m.firstLine.startsWith('SIP/2.0 200') && m.cseqMethod === 'INVITE');
  const bye = sip.find((m) => m.firstLine.startsWith('BYE '));
  const byeOk = sip.find((m) => m.firstLine.startsWith('SIP/2.0 200') && m.cseqMethod === 'BYE');
  // RTP goes where each side's SDP asked for it: the offer names the caller's port, the answer the bridge's.
  const heard = datagrams.filter(toward(invite?.media)).flatMap((d) => pcmuPacket(d) ?? []);
  const said = datagrams.filter(toward(ok?.media)).flatMap((d) => pcmuPacket(d) ?? []);

  const failures: string[] = [];
  const figures: CallFigures = { greetingSoundMs: 0, byeCompleted: Boolean(bye && byeOk && byeOk.ms >= bye.ms), failures };
  if (!invite || !ok) {
    failures.push(invite ? 'no 200 OK to the INVITE' : 'no INVITE captured');
    return figures;
  }
  figures.answeredAfterMs = ok.ms - invite.ms;
  if (!figures.byeCompleted) failures.push(bye ? 'the BYE got no 200 OK' : 'no BYE captured');

  const saidLoud = said.filter(loud);
  const speechStart = saidLoud[0]?.ms;
  const speechEnd = saidLoud.at(-1)?.ms;
  if (speechStart !== undefined && speechEnd !== undefined) {
    figures.callerSpeech = { startMs: speechStart - ok.ms, endMs: speechEnd - ok.ms };
  } else {
    failures.push('the caller sent no speech (check the caller audio)');
  }

  const greeting = heard.find((p) => p.ms >= ok.ms && loud(p));
  if (!greeting) {
    failures.push(`no speech energy reached the caller (${heard.length} PCMU packets)`);
    return figures;
  }
  figures.greetingMs = greeting.ms - ok.ms;
  const greetingWindowEnd = speechStart ?? Infinity;
  figures.greetingSoundMs = heard.filter((p) => p.ms >= greeting.ms && p.ms < greetingWindowEnd && loud(p)).reduce((n, p) => n + p.durationMs, 0);
  if (speechStart !== undefined && greeting.ms >= speechStart) failures.push('the first speech energy came after the caller spoke: no greeting');
  else if (figures.greetingSoundMs < MIN_GREETING_SOUND_MS) failures.push(`the greeting carried only ${figures.greetingSoundMs} ms of sound`);

  if (speechEnd !== undefined) {
    const onset = heard.find((p, i) => p.ms > speechEnd && loud(p) && quietBefore(heard, i));
    if (onset) figures.answerMs = onset.ms - speechEnd;
    else failures.push("the caller's speech was not answered (no new speech energy after it)");
  }
  return figures;
}

/** No loud packet in the ONSET_GAP_MS before packet `i`. */
function quietBefore(packets: RtpPacket[], i: number): boolean {
  const at = packets[i]!.ms;
  for (let j = i - 1; j >= 0 && packets[j]!.ms >= at - ONSET_GAP_MS; j--) if (loud(packets[j]!)) return false;
  return true;
}
