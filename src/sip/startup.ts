/**
 * Where a phone call's first second goes, on the worker's clock: one `call start-up` log line per
 * call with the steps from the room's creation (the moment the bridge's participant made it) to
 * the greeting's first audio going out. `npm run bench:phone` joins it with the caller's clock.
 */
import { voice } from '@livekit/agents';
import type { HeldGreeting } from './greeting-audio.js';

export type StartupStep = 'greetingAsked' | 'connected' | 'participant' | 'sessionStarted';

export interface StartupFields {
  startup: {
    /** ms from the room's creation to the job's entry (dispatch, job assignment, process start). */
    roomToEntryMs?: number;
    /** ms from the entry, per step. */
    greetingAskedMs?: number;
    connectedMs?: number;
    participantMs?: number;
    sessionStartedMs?: number;
    /** The greeting's first TTS frame (held greeting only), and its first audio to the room. */
    ttsFirstFrameMs?: number;
    speakingMs?: number;
    greeting: 'held' | 'spoken';
    /** Epoch ms of the entry (to line it up with the caller's clock). */
    entryAt: number;
  };
}

export class CallStartup {
  readonly entryAt = Date.now();
  readonly #roomCreatedAt: number | undefined;
  readonly #marks = new Map<StartupStep, number>();

  constructor(roomCreationTimeMs: bigint | number | undefined) {
    const created = roomCreationTimeMs === undefined ? 0 : Number(roomCreationTimeMs);
    this.#roomCreatedAt = created > 0 ? created : undefined;
  }

  mark(step: StartupStep): void {
    this.#marks.set(step, Date.now() - this.entryAt);
  }

  /** Reports once the agent starts speaking (its first audio frame is out), or never. */
  whenSpeaking(session: Pick<voice.AgentSession, 'on' | 'off'>, held: HeldGreeting | undefined, report: (fields: StartupFields) => void): void {
    const onState = (event: voice.AgentStateChangedEvent) => {
      if (event.newState !== 'speaking') return;
      session.off(voice.AgentSessionEventTypes.AgentStateChanged, onState);
      report(this.fields(Date.now(), held?.firstFrameAt(), held !== undefined));
    };
    session.on(voice.AgentSessionEventTypes.AgentStateChanged, onState);
  }

  fields(speakingAt: number | undefined, ttsFirstFrameAt: number | undefined, held: boolean): StartupFields {
    const since = (at: number | undefined) => (at === undefined ? undefined : at - this.entryAt);
    return {
      startup: {
        ...(this.#roomCreatedAt !== undefined ? { roomToEntryMs: this.entryAt - this.#roomCreatedAt } : {}),
        greetingAskedMs: this.#marks.get('greetingAsked'),
        connectedMs: this.#marks.get('connected'),
        participantMs: this.#marks.get('participant'),
        sessionStartedMs: this.#marks.get('sessionStarted'),
        ttsFirstFrameMs: since(ttsFirstFrameAt),
        speakingMs: since(speakingAt),
        greeting: held ? 'held' : 'spoken',
        entryAt: this.entryAt,
      },
    };
  }
}
