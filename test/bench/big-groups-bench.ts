import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import type { Connector } from '../../src/connectors/connector';
import type { TargetAccount } from '../../src/domain/account';
import { startGraphSandbox } from '../../src/sandbox/graph';
import { graphSandboxConnector } from '../support/graph-sandbox-connector';
import { createdAccount, runMembership } from '../support/membership-procedure';
import { measure } from './measure';
import { connectorFor, startSandboxProcess } from './scim-bench';

const GRANTS = 100;
const BIG = 100_000;
const SMALL = 10;
const LATENCY_MS = 5;
/** Grants of the whole-group comparison: each moves megabytes. */
const FALLBACK_GRANTS = 10;

interface Phase {
  wallMs: number;
  bytes: number;
  failed: number;
}

/** `GRANTS` accounts granted one group each, all at once, through the membership procedure. */
async function grants(
  connector: Connector,
  accounts: TargetAccount[],
  groupId: string,
  bytesServed: () => Promise<number>,
): Promise<Phase> {
  const before = await bytesServed();
  const run = await measure(() =>
    Promise.all(accounts.map((account) => runMembership(connector, account, 'grant', [groupId]))),
  );
  return {
    wallMs: run.wallMs,
    bytes: (await bytesServed()) - before,
    failed: run.value.filter((outcome) => !outcome.ok || outcome.changes.length !== 1).length,
  };
}

function report(print: (line: string) => void, target: string, small: Phase, big: Phase): void {
  print(
    `  ${target}: ${SMALL}-member group ${small.wallMs.toFixed(0)} ms, ${(small.bytes / GRANTS / 1024).toFixed(2)} KB read per grant; ` +
      `${BIG.toLocaleString('en')}-member group ${big.wallMs.toFixed(0)} ms, ${(big.bytes / GRANTS / 1024).toFixed(2)} KB read per grant (target < 20 KB); ` +
      `wall ratio ${(big.wallMs / small.wallMs).toFixed(2)} (target <= 1.10); failed ${small.failed + big.failed}`,
  );
}

async function scimBigGroups(print: (line: string) => void): Promise<void> {
  const token = randomBytes(16).toString('hex');
  const sandbox = await startSandboxProcess(token, { latencyMs: LATENCY_MS }, 0, [
    SMALL,
    BIG,
    SMALL,
  ]);
  const connector = connectorFor(sandbox.baseUrl, token, { concurrency: 8 });
  try {
    const accounts = await Promise.all(
      Array.from({ length: GRANTS * 3 }, (_, i) =>
        createdAccount(connector, { accountId: `big.user.${i}` }),
      ),
    );
    const [smallId, bigId, warmUpId] = sandbox.populatedIds as [string, string, string];
    // Warm-up into a third small group, not measured: the connector's first membership
    // check probes the members filter (once per connector and worker), and both processes
    // compile the path; neither measured group pays for that.
    const bytes = () => sandbox.bytesServed();
    await grants(connector, accounts.slice(2 * GRANTS), warmUpId, bytes);
    // The sandbox's CPU in each phase: what the server spent, apart from the connector.
    await sandbox.requests();
    const small = await grants(connector, accounts.slice(0, GRANTS), smallId, bytes);
    await sandbox.requests();
    const smallServerMs = sandbox.serverCpuMs();
    const big = await grants(connector, accounts.slice(GRANTS, 2 * GRANTS), bigId, bytes);
    await sandbox.requests();
    report(print, 'SCIM (members filter; sandbox in a child process)', small, big);
    print(
      `    sandbox CPU: ${smallServerMs.toFixed(0)} ms for the ${SMALL}-member group's grants, ${sandbox.serverCpuMs().toFixed(0)} ms for the ${BIG.toLocaleString('en')}-member group's`,
    );
  } finally {
    await connector.close();
    await sandbox.stop();
  }
  await scimWholeGroupReads(print);
}

/** What every grant cost before (and still costs on a server without the members filter). */
async function scimWholeGroupReads(print: (line: string) => void): Promise<void> {
  const token = randomBytes(16).toString('hex');
  const sandbox = await startSandboxProcess(
    token,
    { latencyMs: LATENCY_MS, membersFilter: 'refused' },
    0,
    [BIG],
  );
  const connector = connectorFor(sandbox.baseUrl, token, { concurrency: 8 });
  try {
    const accounts = await Promise.all(
      Array.from({ length: FALLBACK_GRANTS }, (_, i) =>
        createdAccount(connector, { accountId: `whole.user.${i}` }),
      ),
    );
    const phase = await grants(connector, accounts, sandbox.populatedIds[0]!, () =>
      sandbox.bytesServed(),
    );
    print(
      `  SCIM on a server without the members filter (the whole group read before, and its members in the PATCH answer, as every grant did before): ` +
        `${FALLBACK_GRANTS} grants, ${(phase.bytes / FALLBACK_GRANTS / 2 ** 20).toFixed(2)} MB read per grant, ${(phase.wallMs / FALLBACK_GRANTS).toFixed(0)} ms per grant`,
    );
  } finally {
    await connector.close();
    await sandbox.stop();
  }
}

async function graphBigGroups(print: (line: string) => void): Promise<void> {
  const sandbox = await startGraphSandbox({ latencyMs: LATENCY_MS });
  const connector = graphSandboxConnector(sandbox, { name: 'graph-big' });
  try {
    const big = sandbox.addGroup({ displayName: 'All Employees' }).id;
    const small = sandbox.addGroup({ displayName: 'Small Team' }).id;
    const warmUp = sandbox.addGroup({ displayName: 'Warm-up Team' }).id;
    for (let i = 0; i < BIG; i++) {
      const { id } = sandbox.addUser({ userPrincipalName: `employee.${i}@contoso.example` });
      sandbox.addMember(big, id);
      if (i < SMALL) sandbox.addMember(small, id);
      if (i < SMALL) sandbox.addMember(warmUp, id);
    }
    const accounts = Array.from({ length: GRANTS * 3 }, (_, i) => {
      const upn = `big.user.${i}@contoso.example`;
      return { id: sandbox.addUser({ userPrincipalName: upn }).id, accountId: upn, enabled: true };
    });
    const bytes = async () => sandbox.bytesServed;
    await connector.checkStatus();
    // Warm-up into a third small group, not measured (see the SCIM part).
    await grants(connector, accounts.slice(2 * GRANTS), warmUp, bytes);
    const smallPhase = await grants(connector, accounts.slice(0, GRANTS), small, bytes);
    const bigPhase = await grants(connector, accounts.slice(GRANTS, 2 * GRANTS), big, bytes);
    report(print, 'Graph (sandbox in this process)', smallPhase, bigPhase);
  } finally {
    await connector.close();
    await sandbox.close();
  }
}

/**
 * Issue 15 benchmark: 100 grants into a group of 100,000 members and into one of 10, on SCIM
 * and on Graph, each grant through the membership procedure (read before, write, read back):
 * the bytes read per grant and the wall time, which must not grow with the group.
 */
export async function runBigGroupsBench(print: (line: string) => void): Promise<void> {
  print(
    `big groups: ${GRANTS} grants into a ${BIG.toLocaleString('en')}-member group vs a ${SMALL}-member one, ${LATENCY_MS} ms latency; load average ${loadavg()[0]!.toFixed(2)}`,
  );
  await scimBigGroups(print);
  await graphBigGroups(print);
}
