// An authoritative DNS server on loopback for tests (dns2, UDP and TCP on one port): tests set the records
// it answers with, and point the product at it with DNS_SERVERS=<dns.server>. Names it does not know answer
// NXDOMAIN; a name marked silent gets no answer at all (a timeout); a name can be given any number of TXT
// records (a huge answer, which node's resolver fetches again over TCP).
import dns2 from 'dns2';

// dns2's typings lack parts of what it does (RCODE, plain answer objects)
const Packet = dns2.Packet as any;

export type RecordType = 'TXT' | 'MX' | 'CNAME' | 'A';
export type RecordValue = string | { exchange: string; priority: number };

export interface TestDnsServer {
  /** ip:port, for DNS_SERVERS */
  server: string;
  /** replaces the records of that name and type (an empty list removes them) */
  set(name: string, type: RecordType, values: RecordValue[]): void;
  /** the name's queries get no answer: the resolver times out */
  silence(name: string): void;
  /** every query seen, "TYPE name" */
  queries: string[];
  close(): Promise<void>;
}

const TYPE_NUMBER: Record<RecordType, number> = {
  TXT: Packet.TYPE.TXT,
  MX: Packet.TYPE.MX,
  CNAME: Packet.TYPE.CNAME,
  A: Packet.TYPE.A,
};

/** A TXT value as DNS carries it: character-strings of at most 255 bytes. */
function chunks(value: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < value.length; i += 255) out.push(value.slice(i, i + 255));
  return out.length ? out : [''];
}

/** `scope`: a test context, fileScope or node:test's `{ after }`: the server closes when it ends. */
export async function startDnsServer(scope?: { after(fn: () => Promise<void>): void }): Promise<TestDnsServer> {
  const records = new Map<string, RecordValue[]>();
  const silent = new Set<string>();
  const queries: string[] = [];
  const key = (name: string, type: number) => `${type} ${name.toLowerCase().replace(/\.$/, '')}`;

  const handle = (request: any, send: (r: any) => void) => {
    const response = Packet.createResponseFromRequest(request);
    response.header.aa = 1;
    const [question] = request.questions;
    const name = String(question.name).toLowerCase();
    const typeName = Object.entries(TYPE_NUMBER).find(([, n]) => n === question.type)?.[0] ?? question.type;
    queries.push(`${typeName} ${name}`);
    if (silent.has(name)) return;
    const found = records.get(key(name, question.type));
    const known = [...records.keys()].some((k) => k.endsWith(` ${name}`));
    if (!found && !known) response.header.rcode = Packet.RCODE.NXDOMAIN;
    for (const value of found ?? []) {
      const base = { name: question.name, type: question.type, class: Packet.CLASS.IN, ttl: 60 };
      if (question.type === Packet.TYPE.TXT) response.answers.push({ ...base, data: chunks(String(value)) });
      else if (question.type === Packet.TYPE.MX) response.answers.push({ ...base, ...(value as object) });
      else if (question.type === Packet.TYPE.CNAME) response.answers.push({ ...base, domain: String(value) });
      else response.answers.push({ ...base, address: String(value) });
    }
    send(response);
  };
  // UDP on a free port, then TCP on the same one (node's resolver asks a truncated answer again over TCP)
  let server: any;
  let port = 0;
  for (let attempt = 0; ; attempt++) {
    server = dns2.createServer({ udp: true, tcp: true, handle } as any);
    server.on('requestError', () => {});
    const { udp, tcp } = server.servers;
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
    port = udp.address().port;
    const ok = await new Promise<boolean>((resolve) => {
      tcp.once('error', () => resolve(false));
      tcp.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (ok) break;
    udp.close();
    if (attempt > 5) throw new Error('No free port for the test DNS server');
  }

  const api: TestDnsServer = {
    server: `127.0.0.1:${port}`,
    queries,
    set(name, type, values) {
      const k = key(name, TYPE_NUMBER[type]);
      if (values.length === 0) records.delete(k);
      else records.set(k, values);
    },
    silence(name) {
      silent.add(name.toLowerCase());
    },
    async close() {
      const { udp, tcp } = server.servers;
      udp.close();
      await new Promise((resolve) => tcp.close(resolve));
    },
  };
  scope?.after(() => api.close());
  return api;
}
