import { describe, expect, it } from 'vitest';
import { VOICE_LEVEL, createTurnTimer } from '../../web/turn-timer.js';

describe('turn timer (page)', () => {
  it('says which two moments it measured between', () => {
    const timer = createTurnTimer();
    timer.userLevel(VOICE_LEVEL, 1000);
    timer.userLevel(VOICE_LEVEL + 0.1, 1200);
    timer.userLevel(VOICE_LEVEL - 0.01, 1300);
    expect(timer.agentLevel(0.7, 1650)).toEqual({ turn: 1, ms: 450, endAt: 1200, heardAt: 1650 });
  });

  it('measures from the end of the user speech to the agent becoming audible', () => {
    const timer = createTurnTimer();
    timer.userSpeaking(true, 1000);
    timer.userSpeaking(false, 2000);
    expect(timer.agentSpeaking(true, 2450)).toMatchObject({ turn: 1, ms: 450 });
  });

  it('does not count the greeting, which has no user turn before it', () => {
    const timer = createTurnTimer();
    expect(timer.agentSpeaking(true, 100)).toBeNull();
    timer.agentSpeaking(false, 900);
    timer.userSpeaking(true, 1000);
    timer.userSpeaking(false, 1500);
    expect(timer.agentSpeaking(true, 1800)).toMatchObject({ turn: 1, ms: 300 });
  });

  it('times from the last end of speech when the user pauses and resumes', () => {
    const timer = createTurnTimer();
    timer.userSpeaking(false, 1000);
    timer.userSpeaking(true, 1200);
    timer.userSpeaking(false, 2000);
    expect(timer.agentSpeaking(true, 2600)).toMatchObject({ turn: 1, ms: 600 });
  });

  it('counts one turn per agent reply, whichever signal (state or audio level) comes first', () => {
    const timer = createTurnTimer();
    timer.userSpeaking(false, 1000);
    expect(timer.agentSpeaking(true, 1300)).toMatchObject({ turn: 1, ms: 300 });
    expect(timer.agentSpeaking(true, 1350)).toBeNull();
    timer.agentSpeaking(false, 3000);
    expect(timer.agentSpeaking(true, 3100)).toBeNull();
    timer.agentSpeaking(false, 3200);
    timer.userSpeaking(false, 4000);
    expect(timer.agentSpeaking(true, 4700)).toMatchObject({ turn: 2, ms: 700 });
  });

  it("measures from the microphone's last frame of voice, not the SFU's late speaking flag", () => {
    const timer = createTurnTimer();
    timer.userSpeaking(true, 900);
    for (let at = 1000; at <= 2000; at += 16) timer.userLevel(0.7, at);
    for (let at = 2016; at <= 3000; at += 16) timer.userLevel(0.05, at); // quiet after 1992
    // livekit-server's speaker updates: "stopped" up to a second after the speech ended
    timer.userSpeaking(false, 2900);
    expect(timer.agentSpeaking(true, 3000)).toMatchObject({ turn: 1, ms: 1008 });
  });

  it('still counts a turn whose agent answers before the SFU says the user stopped', () => {
    const timer = createTurnTimer();
    timer.userSpeaking(true, 900);
    timer.userLevel(VOICE_LEVEL, 1500);
    timer.userLevel(VOICE_LEVEL - 0.01, 1516);
    expect(timer.agentSpeaking(true, 2400)).toMatchObject({ turn: 1, ms: 900 });
    timer.userSpeaking(false, 2500);
    timer.agentSpeaking(false, 4000);
    // no new speech: the agent speaking again is not a turn
    expect(timer.agentSpeaking(true, 5000)).toBeNull();
  });

  it('without a microphone level, ignores a late "stopped" that comes while the agent speaks', () => {
    const timer = createTurnTimer();
    timer.userSpeaking(true, 900);
    timer.userSpeaking(false, 2000);
    expect(timer.agentSpeaking(true, 2400)).toMatchObject({ turn: 1, ms: 400 });
    timer.userSpeaking(true, 2450);
    timer.userSpeaking(false, 2500);
    timer.agentSpeaking(false, 4000);
    expect(timer.agentSpeaking(true, 5000)).toBeNull();
  });

  it("ignores the microphone while the agent is audible (echo, talking over it), not after it stops", () => {
    const timer = createTurnTimer();
    timer.userLevel(0.8, 1000);
    expect(timer.agentSpeaking(true, 1600)).toMatchObject({ turn: 1, ms: 600 });
    timer.userLevel(0.8, 2000);
    timer.agentSpeaking(false, 2500);
    expect(timer.agentSpeaking(true, 3000)).toBeNull();
    timer.agentSpeaking(false, 3500);
    timer.userLevel(0.8, 4000); // a barge-in that goes on after the agent stopped
    expect(timer.agentSpeaking(true, 4700)).toMatchObject({ turn: 2, ms: 700 });
  });

  it('times a typed message from its sending, the later of speech and typing ending the turn', () => {
    const timer = createTurnTimer();
    timer.userTyped(1000);
    expect(timer.agentSpeaking(true, 1450)).toMatchObject({ turn: 1, ms: 450 });
    timer.agentSpeaking(false, 2000);
    timer.userLevel(0.8, 3000);
    timer.userTyped(3500);
    expect(timer.agentSpeaking(true, 3900)).toMatchObject({ turn: 2, ms: 400 });
    timer.agentSpeaking(false, 4000);
    timer.userTyped(5000);
    timer.userLevel(0.8, 5200);
    expect(timer.agentSpeaking(true, 5500)).toMatchObject({ turn: 3, ms: 300 });
  });

  it("takes the agent's own audio as its first sound (an early ack plays before its state says speaking)", () => {
    const timer = createTurnTimer();
    timer.userLevel(0.8, 1000);
    expect(timer.agentLevel(VOICE_LEVEL - 0.01, 1200)).toBeNull();
    expect(timer.agentLevel(0.7, 1290)).toMatchObject({ turn: 1, ms: 290 });
    // The reply's "speaking" state, later, is the same turn.
    expect(timer.agentSpeaking(true, 1600)).toBeNull();
    timer.agentSpeaking(false, 3000);
    // The tail of the reply after it ended is no turn, and leaves the next end of speech counted.
    expect(timer.agentLevel(0.6, 3020)).toBeNull();
    timer.userLevel(0.8, 4000);
    expect(timer.agentLevel(0.6, 4310)).toMatchObject({ turn: 2, ms: 310 });
  });

  it("ignores the agent's level for the greeting, before any user turn", () => {
    const timer = createTurnTimer();
    expect(timer.agentLevel(0.9, 100)).toBeNull();
    timer.userLevel(0.8, 1000);
    expect(timer.agentLevel(0.9, 1400)).toMatchObject({ turn: 1, ms: 400 });
  });

  it("does not time a typed message to the tail of the reply before it (heard after the agent's state said listening)", () => {
    const timer = createTurnTimer();
    timer.userLevel(0.8, 1000);
    expect(timer.agentLevel(0.7, 1300)).toMatchObject({ turn: 1, ms: 300 });
    for (let at = 1320; at < 3000; at += 20) expect(timer.agentLevel(0.6, at)).toBeNull();
    timer.agentSpeaking(false, 3000);
    // The tail still plays on the page: loud frames every 20 ms across the typing.
    timer.userTyped(3010);
    for (let at = 3000; at <= 3200; at += 20) expect(timer.agentLevel(0.6, at)).toBeNull();
    // Quiet, then the reply's own onset.
    expect(timer.agentLevel(0.7, 3500)).toMatchObject({ turn: 2, ms: 490 });
  });
});
