/**
 * The phone, as a sipp scenario: an INVITE offering PCMU only (plus RFC 4733 events, as phones
 * do), ACK on the 200 OK, then one continuous RTP stream from a µ-law file (silence while the
 * agent greets, the caller's question, silence while it answers), then BYE and its 200 OK.
 * sipp's `rtp_stream` plays headerless 8 kHz µ-law, 160 bytes every 20 ms.
 */

export interface ScenarioOptions {
  /** Headerless µ-law file the caller streams after the ACK. */
  audioFile: string;
  /** How long the call stays up after the ACK (the audio's length plus time for the answer). */
  holdMs: number;
  /** The caller's number (the From user): the agent must never log it in clear. */
  callerNumber: string;
}

/** A request inside the call's dialog (to the 200 OK's Contact, with its tag); BYE is retransmitted. */
function inDialog(method: 'ACK' | 'BYE', cseq: number, caller: string): string {
  return `  <send${method === 'BYE' ? ' retrans="500"' : ''}>
    <![CDATA[
      ${method} [next_url] SIP/2.0
      Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
      From: <sip:${caller}@[local_ip]:[local_port]>;tag=[pid]SIPpTag[call_number]
      To: <sip:[service]@[remote_ip]:[remote_port]>[peer_tag_param]
      Call-ID: [call_id]
      CSeq: ${cseq} ${method}
      [routes]
      Contact: <sip:${caller}@[local_ip]:[local_port]>
      Max-Forwards: 70
      Content-Length: 0

    ]]>
  </send>`;
}

export function uacScenario(o: ScenarioOptions): string {
  if (/[",<>&]/.test(o.audioFile)) throw new Error(`sipp cannot take this audio path: ${o.audioFile}`);
  if (!/^\+?\d{3,15}$/.test(o.callerNumber)) throw new Error('the caller number must be digits');
  return `<?xml version="1.0" encoding="ISO-8859-1" ?>
<!DOCTYPE scenario SYSTEM "sipp.dtd">
<scenario name="firstword phone call">
  <send retrans="500">
    <![CDATA[
      INVITE sip:[service]@[remote_ip]:[remote_port] SIP/2.0
      Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
      From: <sip:${o.callerNumber}@[local_ip]:[local_port]>;tag=[pid]SIPpTag[call_number]
      To: <sip:[service]@[remote_ip]:[remote_port]>
      Call-ID: [call_id]
      CSeq: 1 INVITE
      Contact: <sip:${o.callerNumber}@[local_ip]:[local_port]>
      Max-Forwards: 70
      User-Agent: firstword test:sip (sipp)
      Content-Type: application/sdp
      Content-Length: [len]

      v=0
      o=- 53655765 2353687637 IN IP[local_ip_type] [local_ip]
      s=-
      c=IN IP[media_ip_type] [media_ip]
      t=0 0
      m=audio [media_port] RTP/AVP 0 101
      a=rtpmap:0 PCMU/8000
      a=rtpmap:101 telephone-event/8000
      a=fmtp:101 0-16
      a=ptime:20
      a=sendrecv

    ]]>
  </send>

  <recv response="100" optional="true"/>
  <recv response="180" optional="true"/>
  <recv response="183" optional="true"/>
  <recv response="200" rtd="true" rrs="true"/>

${inDialog('ACK', 1, o.callerNumber)}

  <nop>
    <action>
      <exec rtp_stream="${o.audioFile},1,0"/>
    </action>
  </nop>
  <pause milliseconds="${Math.round(o.holdMs)}"/>

${inDialog('BYE', 2, o.callerNumber)}

  <recv response="200" crlf="true"/>
</scenario>
`;
}
