/**
 * Creates a room on one node of a cluster, dispatching an agent to it, INSIDE the namespace:
 *
 *   tsx scripts/stack/place-room.ts ROOM NODE_ID AGENT_NAME
 *
 * Which node hosts a room is otherwise the server's choice (any live node, at random); the Twirp
 * API's CreateRoom takes a node ID. The first caller then joins a room that already exists: its
 * token's dispatch is not applied again, so the room gets exactly the one agent asked for here.
 * Prints one JSON line: `{"room","sid","nodeId"}`.
 */
import { RoomAgentDispatch } from 'livekit-server-sdk';
import { stackRoomService } from './in-namespace.js';

const [room, nodeId, agentName] = process.argv.slice(2);
if (!room || !nodeId?.startsWith('ND_') || !agentName) {
  process.stderr.write('usage: tsx scripts/stack/place-room.ts ROOM NODE_ID AGENT_NAME\n');
  process.exit(2);
}
const client = stackRoomService();
const created = await client.createRoom({ name: room, nodeId, emptyTimeout: 60, agents: [new RoomAgentDispatch({ agentName })] });
process.stdout.write(`${JSON.stringify({ room: created.name, sid: created.sid, nodeId })}\n`);
