import { describe, expect, it } from 'vitest';
import { createTurnTimer } from '../../web/turn-timer.js';

describe('turn timer (page)', () => {
  it('measures from the end of the user speech to the agent becoming audible', () => {
    const timer = createTurnTimer();
    timer.userSpeaking(true, 1000);
    timer.userSpeaking(false, 2000);
    expect(timer.agentSpeaking(true, 2450)).toEqual({ turn: 1, ms: 450 });
  });

  it('does not count the greeting, which has no user turn before it', () => {
    const timer = createTurnTimer();
    expect(timer.agentSpeaking(true, 100)).toBeNull();
    timer.agentSpeaking(false, 900);
    timer.userSpeaking(true, 1000);
    timer.userSpeaking(false, 1500);
    expect(timer.agentSpeaking(true, 1800)).toEqual({ turn: 1, ms: 300 });
  });

  it('uses the last stop when the user pauses and resumes', () => {
    const timer = createTurnTimer();
    timer.userSpeaking(false, 1000);
    timer.userSpeaking(true, 1200);
    timer.userSpeaking(false, 2000);
    expect(timer.agentSpeaking(true, 2600)).toEqual({ turn: 1, ms: 600 });
  });

  it('counts one turn per agent reply, whichever signal (state or audio level) comes first', () => {
    const timer = createTurnTimer();
    timer.userSpeaking(false, 1000);
    expect(timer.agentSpeaking(true, 1300)).toEqual({ turn: 1, ms: 300 });
    expect(timer.agentSpeaking(true, 1350)).toBeNull();
    timer.agentSpeaking(false, 3000);
    expect(timer.agentSpeaking(true, 3100)).toBeNull();
    timer.agentSpeaking(false, 3200);
    timer.userSpeaking(false, 4000);
    expect(timer.agentSpeaking(true, 4700)).toEqual({ turn: 2, ms: 700 });
  });
});
