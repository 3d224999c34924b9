import { DisconnectReason, RoomEvent, TrackKind } from '@livekit/rtc-node';
import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { readDispatchMetadata } from '../../src/recovery/dispatch-metadata.js';
import { ROOM_BACK_DEAF, ROOM_BACK_MUTE, handOverCall, handOverPlan, isLostConnection, watchForLostRoom } from '../../src/recovery/lost-room.js';
import type { RecoveryApi, RoomParticipant } from '../../src/recovery/recover.js';

const self: RoomParticipant = { identity: 'agent-AJ_lost', kind: 4, attributes: {} };
const caller: RoomParticipant = { identity: 'sip_+14155550123', kind: 3, attributes: {} };
const otherAgent: RoomParticipant = { identity: 'agent-AJ_other', kind: 4, attributes: {} };
const history = [
  { role: 'user' as const, text: 'What time does the pharmacy open tomorrow?' },
  { role: 'assistant' as const, text: 'It opens at nine.' },
];
const call = { room: 'call-1', jobId: 'AJ_lost', identity: self.identity, agentName: 'fw', originalMetadata: '{"caller":"web-1"}', history: () => history };

function api(listings: Array<RoomParticipant[] | Error>): RecoveryApi & { calls: string[]; metadata?: string } {
  const a = {
    calls: [] as string[],
    metadata: undefined as string | undefined,
    async listParticipants() {
      const next = listings.length > 1 ? listings.shift()! : listings[0]!;
      a.calls.push('list');
      if (next instanceof Error) throw next;
      return next;
    },
    async removeParticipant(_room: string, identity: string) {
      a.calls.push(`remove ${identity}`);
    },
    async createDispatch(_room: string, agentName: string, options: { metadata: string }) {
      a.calls.push(`dispatch ${agentName}`);
      a.metadata = options.metadata;
      return { id: 'AD_next' };
    },
  };
  return a;
}

/** One warning, one removal and dispatch carrying why, one leave: the call handed over once. */
function expectHandedOver(seen: { lines: string[]; server: { calls: string[]; metadata?: string }; left: string[] }, warning: string, without: string): void {
  expect(seen.lines).toEqual([`warn ${warning}`, expect.stringMatching(/^warn lost the connection to the room; dispatched/)]);
  expect(seen.server.calls.filter((c) => c !== 'list')).toEqual(['remove agent-AJ_lost', 'dispatch fw']);
  expect(seen.left).toEqual([`the room came back without ${without}`]);
  expect(readDispatchMetadata(seen.server.metadata).resume?.why).toBe(`its room came back without ${without}`);
}

const logs = () => {
  const lines: string[] = [];
  return { lines, logger: { info: (_f: unknown, msg: string) => lines.push(`info ${msg}`), warn: (_f: unknown, msg: string) => lines.push(`warn ${msg}`) } };
};

describe('a job that loses its room hands the call over', () => {
  it('checks every end it did not choose with the server (the room closing too), and not leaving on purpose or being put out', () => {
    for (const reason of [DisconnectReason.UNKNOWN_REASON, DisconnectReason.SIGNAL_CLOSE, DisconnectReason.JOIN_FAILURE, DisconnectReason.SERVER_SHUTDOWN, DisconnectReason.STATE_MISMATCH, DisconnectReason.ROOM_CLOSED, DisconnectReason.ROOM_DELETED, undefined])
      expect(isLostConnection(reason)).toBe(true);
    for (const reason of [DisconnectReason.CLIENT_INITIATED, DisconnectReason.PARTICIPANT_REMOVED, DisconnectReason.DUPLICATE_IDENTITY]) expect(isLostConnection(reason)).toBe(false);
  });

  it('hands over only when a caller is there and no other agent', () => {
    expect(handOverPlan([self, caller], self.identity)).toBe('dispatch');
    expect(handOverPlan([caller], self.identity)).toBe('dispatch');
    expect(handOverPlan([self], self.identity)).toBe('no caller');
    expect(handOverPlan([self, caller, otherAgent], self.identity)).toBe('another agent');
  });

  it('takes its own agent out, then dispatches a resumption of itself with the history so far', async () => {
    const server = api([[self, caller]]);
    const { lines, logger } = logs();
    expect(await handOverCall(call, server, logger)).toBe('dispatched');
    expect(server.calls).toEqual(['list', 'remove agent-AJ_lost', 'dispatch fw']);
    expect(readDispatchMetadata(server.metadata)).toEqual({ original: '{"caller":"web-1"}', resume: { resumeOf: 'AJ_lost', why: 'it lost its room', original: '{"caller":"web-1"}', history } });
    expect(lines).toEqual(['warn lost the connection to the room; dispatched a new agent to carry on the call']);
  });

  it('asks its worker for room after taking its agent out and before dispatching; dispatches anyway with a warning when not told', async () => {
    const server = api([[self, caller]]);
    const order: string[] = [];
    const readyToServe = async () => {
      order.push(...server.calls, 'asked');
      return true;
    };
    expect(await handOverCall(call, server, logs().logger, { readyToServe })).toBe('dispatched');
    expect(order).toEqual(['list', 'remove agent-AJ_lost', 'asked']);
    expect(server.calls.at(-1)).toBe('dispatch fw');
    const { lines, logger } = logs();
    expect(await handOverCall(call, api([[self, caller]]), logger, { readyToServe: async () => false })).toBe('dispatched');
    expect(lines[0]).toMatch(/^warn the worker did not say it has room/);
  });

  it('waits for a server still coming back, and gives up with one warning after its patience', async () => {
    const server = api([new Error('connect ECONNREFUSED'), new Error('connect ECONNREFUSED'), [self, caller]]);
    expect(await handOverCall(call, server, logs().logger, { patienceMs: 5000 })).toBe('dispatched');
    const down = api([new Error('connect ECONNREFUSED')]);
    const { lines, logger } = logs();
    expect(await handOverCall(call, down, logger, { patienceMs: 1200 })).toBe('failed');
    expect(down.calls.every((c) => c === 'list')).toBe(true);
    expect(lines).toEqual(['warn lost the connection to the room and could not hand the call over']);
  });

  it('dispatches nothing when the caller has gone (a closed room lists no one) or another agent is there', async () => {
    const closed = api([[]]);
    expect(await handOverCall(call, closed, logs().logger)).toBe('no caller');
    const empty = api([[self]]);
    expect(await handOverCall(call, empty, logs().logger)).toBe('no caller');
    const taken = api([[caller, otherAgent]]);
    expect(await handOverCall(call, taken, logs().logger)).toBe('another agent');
    expect([...closed.calls, ...empty.calls, ...taken.calls]).toEqual(['list', 'list', 'list']);
  });
});

/** rtc-node's Room as the watch sees it: events, the callers' tracks with their subscription, and the agent's own (none unless given). */
function fakeRoom(tracks: Record<string, boolean> = {}, own: Record<string, TrackKind> = {}) {
  const publications = new Map(Object.entries(tracks).map(([sid, subscribed]) => [sid, { kind: TrackKind.KIND_AUDIO, subscribed }]));
  const localParticipant = { trackPublications: new Map(Object.entries(own).map(([sid, kind]) => [sid, { kind }])) };
  return Object.assign(new EventEmitter(), { remoteParticipants: new Map([[caller.identity, { kind: caller.kind, trackPublications: publications }]]), publications, localParticipant });
}

describe('the job watching its room', () => {
  const server = () => api([[self, caller]]);

  it('hands over when the room stays reconnecting past its patience, then leaves', async () => {
    vi.useFakeTimers();
    try {
      const room = fakeRoom({ TR_caller: true });
      const left: string[] = [];
      const s = server();
      const watch = watchForLostRoom(room as never, call, s, logs().logger, (why) => left.push(why), { reconnectPatienceMs: 12_000 });
      room.emit(RoomEvent.Reconnecting);
      await vi.advanceTimersByTimeAsync(11_000);
      expect(s.calls).toEqual([]);
      await vi.advanceTimersByTimeAsync(2000);
      await watch.settled();
      await vi.advanceTimersByTimeAsync(0);
      expect(s.calls).toEqual(['list', 'remove agent-AJ_lost', 'dispatch fw']);
      expect(left).toEqual(['the room connection did not come back']);
      expect(readDispatchMetadata(s.metadata).resume?.why).toBe('its room connection did not come back');
      // The job's own leaving afterwards hands nothing over again.
      room.emit(RoomEvent.Disconnected, DisconnectReason.SIGNAL_CLOSE);
      await watch.settled();
      expect(s.calls.filter((c) => c.startsWith('dispatch'))).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('does nothing when the room comes back in time, or when the job leaves on purpose', async () => {
    vi.useFakeTimers();
    try {
      const room = fakeRoom({ TR_caller: true });
      const s = server();
      const left: string[] = [];
      const watch = watchForLostRoom(room as never, call, s, logs().logger, (why) => left.push(why), { reconnectPatienceMs: 12_000 });
      room.emit(RoomEvent.Reconnecting);
      await vi.advanceTimersByTimeAsync(5000);
      room.emit(RoomEvent.Reconnected);
      await vi.advanceTimersByTimeAsync(20_000);
      room.emit(RoomEvent.Disconnected, DisconnectReason.CLIENT_INITIATED);
      await watch.settled();
      expect(s.calls).toEqual([]);
      expect(left).toEqual([]);
      watch.stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it('hands over at once when the connection ends without its choosing', async () => {
    const room = fakeRoom({ TR_caller: true });
    const s = server();
    const watch = watchForLostRoom(room as never, call, s, logs().logger, () => {});
    room.emit(RoomEvent.Disconnected, DisconnectReason.SIGNAL_CLOSE);
    expect(await watch.settled()).toBe('dispatched');
    expect(readDispatchMetadata(s.metadata).resume?.why).toBe('its room connection ended (SIGNAL_CLOSE)');
    watch.stop();
    room.emit(RoomEvent.Reconnecting);
    expect(room.listenerCount(RoomEvent.Reconnecting)).toBe(0);
  });

  it("hands over when the room comes back but the caller's track is never subscribed, then leaves", async () => {
    vi.useFakeTimers();
    try {
      const room = fakeRoom({ TR_caller: false });
      const s = server();
      const left: string[] = [];
      const { lines, logger } = logs();
      const watch = watchForLostRoom(room as never, call, s, logger, (why) => left.push(why), { hearing: { patienceMs: 4000 } });
      room.emit(RoomEvent.Reconnecting);
      room.emit(RoomEvent.Reconnected);
      await vi.advanceTimersByTimeAsync(3500);
      expect(s.calls).toEqual([]);
      await vi.advanceTimersByTimeAsync(1000);
      await watch.settled();
      await vi.advanceTimersByTimeAsync(0);
      expectHandedOver({ lines, server: s, left }, ROOM_BACK_DEAF, "the caller's audio");
      watch.stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps the call when the caller is heard again in time, and stops looking when the room reconnects once more', async () => {
    vi.useFakeTimers();
    try {
      const room = fakeRoom({ TR_caller: false });
      const s = server();
      const watch = watchForLostRoom(room as never, call, s, logs().logger, () => {}, { hearing: { patienceMs: 4000 } });
      room.emit(RoomEvent.Reconnected);
      await vi.advanceTimersByTimeAsync(2000);
      room.publications.get('TR_caller')!.subscribed = true;
      await vi.advanceTimersByTimeAsync(60_000);
      expect(s.calls).toEqual([]);
      room.publications.set('TR_again', { kind: TrackKind.KIND_AUDIO, subscribed: false });
      room.emit(RoomEvent.Reconnected);
      await vi.advanceTimersByTimeAsync(1000);
      room.emit(RoomEvent.Reconnecting);
      await vi.advanceTimersByTimeAsync(5000);
      room.emit(RoomEvent.Disconnected, DisconnectReason.CLIENT_INITIATED);
      await vi.advanceTimersByTimeAsync(60_000);
      await watch.settled();
      expect(s.calls).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("hands over when the room comes back but the server never lists the agent's audio, then leaves", async () => {
    vi.useFakeTimers();
    try {
      const room = fakeRoom({ TR_caller: true }, { TR_agent: TrackKind.KIND_AUDIO });
      const s = api([[{ ...self, tracks: [] }, { ...caller, tracks: [{ type: 0 }] }]]);
      const left: string[] = [];
      const { lines, logger } = logs();
      const watch = watchForLostRoom(room as never, call, s, logger, (why) => left.push(why), { speaking: { patienceMs: 6000, pollMs: 500 } });
      room.emit(RoomEvent.Reconnecting);
      room.emit(RoomEvent.Reconnected);
      await vi.advanceTimersByTimeAsync(5600);
      expect(s.calls.every((c) => c === 'list')).toBe(true);
      await vi.advanceTimersByTimeAsync(500);
      await watch.settled();
      await vi.advanceTimersByTimeAsync(0);
      expectHandedOver({ lines, server: s, left }, ROOM_BACK_MUTE, "the agent's audio");
      watch.stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it('hands over once when the room comes back both deaf and mute, and stops asking at the first verdict', async () => {
    vi.useFakeTimers();
    try {
      const room = fakeRoom({ TR_caller: false }, { TR_agent: TrackKind.KIND_AUDIO });
      const s = api([[{ ...self, tracks: [] }, { ...caller, tracks: [{ type: 0 }] }]]);
      const left: string[] = [];
      const { lines, logger } = logs();
      const watch = watchForLostRoom(room as never, call, s, logger, (why) => left.push(why), { hearing: { patienceMs: 4000 }, speaking: { patienceMs: 6000, pollMs: 500 } });
      room.emit(RoomEvent.Reconnected);
      await vi.advanceTimersByTimeAsync(4500);
      await watch.settled();
      await vi.advanceTimersByTimeAsync(0);
      expectHandedOver({ lines, server: s, left }, ROOM_BACK_DEAF, "the caller's audio");
      const asked = s.calls.length;
      await vi.advanceTimersByTimeAsync(30_000);
      expect(s.calls).toHaveLength(asked);
      expect(lines).toHaveLength(2);
      watch.stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it("keeps the call when the server lists the agent's audio, and stops asking when the room reconnects again", async () => {
    vi.useFakeTimers();
    try {
      const room = fakeRoom({ TR_caller: true }, { TR_agent: TrackKind.KIND_AUDIO });
      const listed = api([[{ ...self, tracks: [{ type: 0 }] }, caller]]);
      const watch = watchForLostRoom(room as never, call, listed, logs().logger, () => {}, { speaking: { patienceMs: 6000 } });
      room.emit(RoomEvent.Reconnected);
      await vi.advanceTimersByTimeAsync(60_000);
      expect(listed.calls).toEqual(['list']);
      watch.stop();

      const unlisted = api([[self, caller]]);
      const again = watchForLostRoom(room as never, call, unlisted, logs().logger, () => {}, { speaking: { patienceMs: 6000 } });
      room.emit(RoomEvent.Reconnected);
      await vi.advanceTimersByTimeAsync(3000);
      room.emit(RoomEvent.Reconnecting);
      const asked = unlisted.calls.length;
      await vi.advanceTimersByTimeAsync(10_000);
      expect(unlisted.calls).toHaveLength(asked);
      again.stop();
      await again.settled();
      expect(unlisted.calls.every((c) => c === 'list')).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});
