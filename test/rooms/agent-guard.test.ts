import { EventEmitter } from 'node:events';
import { type Room, RoomEvent } from '@livekit/rtc-node';
import { describe, expect, it } from 'vitest';
import { guardOneAgent } from '../../src/rooms/agent-guard.js';
import { SINCE_ATTRIBUTE } from '../../src/rooms/one-agent.js';

/** What the guard reads of a Room: its remote participants and its events. */
class FakeRoom extends EventEmitter {
  remoteParticipants = new Map<string, { identity: string; attributes: Record<string, string> }>();
  join(identity: string, attributes: Record<string, string>) {
    const p = { identity, attributes };
    this.remoteParticipants.set(identity, p);
    this.emit(RoomEvent.ParticipantConnected, p);
    return p;
  }
}

const ours = (since: number) => ({ 'lk.agent.name': 'firstword', [SINCE_ATTRIBUTE]: String(since) });

function watch(room: FakeRoom, since: number) {
  const yielded: string[] = [];
  const stop = guardOneAgent(room as unknown as Room, { self: { identity: 'agent-me', since }, agentName: 'firstword', onYield: (s) => yielded.push(s.identity) });
  return { yielded, stop };
}

describe('the job watching its room for an earlier agent of the call', () => {
  it('leaves once, when an earlier agent of ours joins after it (the call\'s own job reconnecting)', () => {
    const room = new FakeRoom();
    room.join('caller', {});
    const { yielded } = watch(room, 2000);
    expect(yielded).toEqual([]);
    room.join('agent-other-name', { 'lk.agent.name': 'other', [SINCE_ATTRIBUTE]: '1' });
    room.join('agent-later', ours(3000));
    expect(yielded).toEqual([]);
    room.join('agent-old', ours(1000));
    room.emit(RoomEvent.Reconnected);
    expect(yielded).toEqual(['agent-old']);
  });

  it('leaves at once when the earlier agent is already there, and on an attribute that arrives later', () => {
    const there = new FakeRoom();
    there.join('agent-old', ours(1000));
    expect(watch(there, 2000).yielded).toEqual(['agent-old']);

    const late = new FakeRoom();
    const p = late.join('agent-old', { 'lk.agent.name': 'firstword' });
    const { yielded } = watch(late, 2000);
    // Unstamped it outranks no stamped agent; stamped it does.
    expect(yielded).toEqual([]);
    p.attributes[SINCE_ATTRIBUTE] = '5';
    late.emit(RoomEvent.ParticipantAttributesChanged, { [SINCE_ATTRIBUTE]: '5' }, p);
    expect(yielded).toEqual(['agent-old']);
  });

  it('stays when only later agents come, and stops watching when told', () => {
    const room = new FakeRoom();
    const { yielded, stop } = watch(room, 1000);
    room.join('agent-new', ours(2000));
    stop();
    room.join('agent-older', ours(500));
    expect(yielded).toEqual([]);
    expect(room.listenerCount(RoomEvent.ParticipantConnected)).toBe(0);
  });
});
