/** rtc-node specifics shared by the participant clients. */
import type { Room } from '@livekit/rtc-node';

export interface Candidate {
  address: string;
  port: number;
  protocol: string;
  type: string;
  local: boolean;
}

const CANDIDATE_TYPES = ['host', 'srflx', 'prflx', 'relay'];

/** ICE candidates of both peer connections, from libwebrtc's own stats. */
export async function iceCandidates(room: Room): Promise<Candidate[]> {
  const stats = await room.getRtcStats();
  const found: Candidate[] = [];
  for (const stat of [...stats.publisherStats, ...stats.subscriberStats]) {
    const { case: kind, value } = stat.stats;
    if (kind !== 'localCandidate' && kind !== 'remoteCandidate') continue;
    const candidate = value.candidate;
    if (!candidate) continue;
    found.push({
      address: candidate.address ?? '',
      port: candidate.port ?? 0,
      protocol: candidate.protocol ?? '',
      type: CANDIDATE_TYPES[candidate.candidateType ?? 0] ?? String(candidate.candidateType),
      local: kind === 'localCandidate',
    });
  }
  // Each peer connection reports its own copy; one line per distinct candidate is enough.
  const seen = new Set<string>();
  return found.filter((c) => {
    const key = JSON.stringify(c);
    return seen.has(key) ? false : (seen.add(key), true);
  });
}

