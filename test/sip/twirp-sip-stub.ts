import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the stub saw it. */
export interface RecordedCall {
  method: string;
  body: Record<string, unknown>;
  authorization: string | undefined;
}

type Json = Record<string, unknown>;

/**
 * A stand-in for LiveKit's SIP service: Twirp over HTTP with protobuf-JSON bodies
 * (`POST /twirp/livekit.SIP/<Method>`), in-memory trunks and rules, and a log of every
 * call so tests can assert exactly what the client asked for.
 */
export class TwirpSipStub {
  readonly calls: RecordedCall[] = [];
  readonly trunks = new Map<string, Json>();
  readonly rules = new Map<string, Json>();
  #server: Server;
  #nextId = 1;

  constructor() {
    this.#server = createServer((req, res) => {
      this.#handle(req, res).catch((error: unknown) => {
        this.#reply(res, 500, { code: 'internal', msg: String(error) });
      });
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    const { port } = this.#server.address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  seedTrunk(trunk: Json): string {
    const id = `ST_seed${this.#nextId++}`;
    this.trunks.set(id, { ...trunk, sipTrunkId: id });
    return id;
  }

  seedRule(rule: Json): string {
    const id = `SDR_seed${this.#nextId++}`;
    this.rules.set(id, { ...rule, sipDispatchRuleId: id });
    return id;
  }

  /** Calls that change state (anything but List*). */
  get writes(): RecordedCall[] {
    return this.calls.filter((call) => !call.method.startsWith('List'));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const match = /^\/twirp\/livekit\.SIP\/(\w+)$/.exec(req.url ?? '');
    if (req.method !== 'POST' || !match) {
      this.#reply(res, 404, { code: 'bad_route', msg: `no handler for ${req.method} ${req.url}` });
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Json;
    const method = match[1]!;
    this.calls.push({ method, body, authorization: req.headers.authorization });

    switch (method) {
      case 'ListSIPInboundTrunk':
        return this.#reply(res, 200, { items: [...this.trunks.values()] });
      case 'CreateSIPInboundTrunk': {
        const id = `ST_${this.#nextId++}`;
        const trunk = { ...(body.trunk as Json), sipTrunkId: id };
        this.trunks.set(id, trunk);
        return this.#reply(res, 200, trunk);
      }
      case 'UpdateSIPInboundTrunk': {
        const id = body.sipTrunkId as string;
        if (!this.trunks.has(id)) return this.#reply(res, 404, { code: 'not_found', msg: 'no such trunk' });
        const trunk = { ...(body.replace as Json), sipTrunkId: id };
        this.trunks.set(id, trunk);
        return this.#reply(res, 200, trunk);
      }
      case 'ListSIPDispatchRule':
        return this.#reply(res, 200, { items: [...this.rules.values()] });
      case 'CreateSIPDispatchRule': {
        const id = `SDR_${this.#nextId++}`;
        const { rule, trunkIds, name, roomConfig, hidePhoneNumber, metadata } = body;
        const info = { sipDispatchRuleId: id, rule, trunkIds, name, roomConfig, hidePhoneNumber, metadata };
        this.rules.set(id, info);
        return this.#reply(res, 200, info);
      }
      case 'UpdateSIPDispatchRule': {
        const id = body.sipDispatchRuleId as string;
        if (!this.rules.has(id)) return this.#reply(res, 404, { code: 'not_found', msg: 'no such rule' });
        const info = { ...(body.replace as Json), sipDispatchRuleId: id };
        this.rules.set(id, info);
        return this.#reply(res, 200, info);
      }
      default:
        return this.#reply(res, 404, { code: 'bad_route', msg: `unknown method ${method}` });
    }
  }

  #reply(res: ServerResponse, status: number, body: Json): void {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }
}
