#!/usr/bin/env node
// `npm run test:compose`: docker-compose.yml run for real, with Podman (no Docker engine on these
// machines), as root. Phases, each timed:
//   1. Podman and the base images (scripts/compose/images.sh; cached in /var/cache/mm-compose and in
//      Podman's image store, so only a machine's first run builds them)
//   2. the platform's image from the project's Dockerfile (podman-compose build)
//   3. a throw-away .env with fresh secrets; the containers created from docker-compose.yml plus
//      scripts/compose/compose.test.yml, then started in the order of their depends_on conditions
//      (podman-compose 1.0.3 ignores the conditions; health checks run only when asked, no systemd)
//   4. `npm run demo` against the published port
//   5. what answers: from the host only the published port; from each container exactly what the
//      platform's edges allow (deploy/src/edges.ts, the NetworkPolicies' table: PostgreSQL, Redis,
//      the services its URLs name, the outside world for those that call out), by name and by address
//   6. everything torn down (containers, networks, volumes), whatever happened before
// Exits non-zero with the failing phase's message. Docs: docs/operations.md "Containers (test:compose)".
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CORE_SCHEMA, load, mergeTag } from 'js-yaml';

const root = fileURLToPath(new URL('..', import.meta.url));
const here = join(root, 'scripts', 'compose');
const project = process.env.MM_COMPOSE_PROJECT ?? 'mm-compose-test';
const IMAGES = {
  MM_BASE_IMAGE: 'localhost/mm-compose/debian:bookworm',
  MM_NODE_IMAGE: 'localhost/mm-compose/node:20-bookworm',
  MM_POSTGRES_IMAGE: 'localhost/mm-compose/postgres:15-bookworm',
  MM_REDIS_IMAGE: 'localhost/mm-compose/redis:7-bookworm',
};
const HEALTH_TIMEOUT_MS = 240_000;

class Failure extends Error {}
const timings = [];
const say = (line) => process.stdout.write(`${line}\n`);

async function phase(name, fn) {
  const started = Date.now();
  say(`\n== ${name}`);
  try {
    return await fn();
  } finally {
    const seconds = (Date.now() - started) / 1000;
    timings.push([name, seconds]);
    say(`== ${name}: ${seconds.toFixed(1)} s`);
  }
}

/** Runs a command; its output is shown only when it fails (or always with `show`). */
function run(cmd, args, { show = false, env, allowFail = false, input } = {}) {
  const res = spawnSync(cmd, args, { cwd: root, env: { ...process.env, ...env }, encoding: 'utf8', input, maxBuffer: 64 << 20 });
  const output = `${res.stdout ?? ''}${res.stderr ?? ''}`;
  if (show) process.stdout.write(output);
  if (res.status !== 0 && !allowFail) {
    if (!show) process.stdout.write(output.split('\n').slice(-40).join('\n'));
    throw new Failure(`${cmd} ${args.join(' ')} exited ${res.status ?? res.signal}`);
  }
  return { status: res.status, stdout: res.stdout ?? '', output };
}

/** Runs a command with its output streamed (long builds). */
function stream(cmd, args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: root, env: { ...process.env, ...env }, stdio: 'inherit' });
    child.on('error', reject);
    child.on('exit', (code, signal) => (code === 0 ? resolve() : reject(new Failure(`${cmd} ${args.join(' ')} exited ${code ?? signal}`))));
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * A port free on every address, below the kernel's ephemeral range (32768 and up): a port the kernel
 * handed out for listen(0) may be given again to an outgoing connection before Podman binds it.
 */
async function freePort() {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '0.0.0.0', () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

// ---------------------------------------------------------------------------------------------------
// The throw-away environment: every variable docker-compose.yml requires, freshly generated.

function serviceKeys() {
  const lines = [];
  for (const caller of ['orchestrator', 'auth', 'partners', 'ledger-wallets', 'webhook-dispatcher', 'ops']) {
    const printed = execFileSync(process.execPath, [join(root, 'tools', 'service-key.mjs'), caller], { encoding: 'utf8' });
    lines.push(...printed.split('\n').filter((l) => /^[A-Z][A-Z0-9_]*=/.test(l)));
  }
  return Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
}

function base32(bytes) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const b of bytes) bits += b.toString(2).padStart(8, '0');
  let out = '';
  for (let i = 0; i + 5 <= bits.length; i += 5) out += alphabet[parseInt(bits.slice(i, i + 5), 2)];
  return out;
}

function generateEnv(ports) {
  const hex = (n = 32) => randomBytes(n).toString('hex');
  const pem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' });
  const standin = 'http://sms-standin:8080';
  return {
    ...IMAGES,
    MM_REPO: root,
    MM_STANDIN_PUBLISHED_PORT: String(ports.standin),
    ORCHESTRATOR_PUBLISHED_PORT: String(ports.gateway),
    POSTGRES_PASSWORD: hex(16),
    REDIS_PASSWORD: hex(16),
    SVC_ORCHESTRATOR_PASSWORD: hex(16),
    SVC_AUTH_PASSWORD: hex(16),
    SVC_PARTNERS_PASSWORD: hex(16),
    SVC_LEDGER_PASSWORD: hex(16),
    SVC_WEBHOOKS_PASSWORD: hex(16),
    ...serviceKeys(),
    PIN_PEPPER: hex(),
    OTP_HMAC_KEY: hex(),
    TOTP_ENCRYPTION_KEY: hex(),
    JWT_PRIVATE_KEY: pem.trim().replace(/\n/g, '\\n'),
    PARTNERS_PSEUDONYM_SECRET: hex(),
    LEDGER_CHAIN_ANCHOR_KEY: hex(),
    STAFF_AUDIT_ANCHOR_KEY: hex(),
    WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    SMS_PROVIDER_URL: `${standin}/sms`,
    SMS_PROVIDER_TOKEN: hex(16),
    OPS_ALERT_URL: `${standin}/alerts/ops`,
    COMPLIANCE_ALERT_URL: `${standin}/alerts/compliance`,
    LEDGER_INTEGRITY_ALERT_URL: `${standin}/alerts/ledger-integrity`,
    LEDGER_COMPLIANCE_ALERT_URL: `${standin}/alerts/ledger-compliance`,
    BOOTSTRAP_ADMIN_PHONE: `+2376${String(10_000_000 + (randomBytes(4).readUInt32BE() % 89_999_999))}`,
    BOOTSTRAP_ADMIN_PIN: '4826',
    BOOTSTRAP_ADMIN_TOTP_SECRET: base32(randomBytes(20)),
  };
}

// ---------------------------------------------------------------------------------------------------
// podman-compose (with its interpolation fix) on a copy of the compose file beside the generated .env,
// so that the repository's own .env, if a developer has one, is neither read nor overwritten.

let workDir;
function compose(args, options) {
  return run(
    'python3',
    [
      join(here, 'podman-compose.py'),
      '--no-ansi',
      '-p',
      project,
      '-f',
      join(workDir, 'docker-compose.yml'),
      '-f',
      join(workDir, 'compose.test.yml'),
      ...args,
    ],
    { show: !!process.env.MM_COMPOSE_VERBOSE, ...options },
  );
}

const containerOf = (service) => `${project}_${service}_1`;

function inspect(name) {
  return JSON.parse(run('podman', ['inspect', '--type', 'container', name]).stdout)[0];
}

function logsOf(name, lines = 40) {
  return run('podman', ['logs', '--tail', String(lines), name], { allowFail: true }).output;
}

/** A container's condition as compose's depends_on names it, polled (health checks run only when asked). */
async function waitFor(service, condition) {
  const name = containerOf(service);
  const deadline = Date.now() + HEALTH_TIMEOUT_MS;
  for (;;) {
    const state = inspect(name).State;
    if (condition === 'service_completed_successfully') {
      if (state.Status === 'exited') {
        if (state.ExitCode === 0) return;
        throw new Failure(`${service} exited ${state.ExitCode}:\n${logsOf(name)}`);
      }
    } else if (state.Status === 'running') {
      if (condition !== 'service_healthy') return;
      if (run('podman', ['healthcheck', 'run', name], { allowFail: true }).status === 0) return;
    }
    if (Date.now() > deadline) throw new Failure(`${service} not ${condition} after ${HEALTH_TIMEOUT_MS / 1000} s:\n${logsOf(name)}`);
    await sleep(1000);
  }
}

/** docker compose's start order: a service starts once each dependency meets its condition. */
function startInOrder(services) {
  const started = new Map();
  const start = (service) => {
    if (!started.has(service)) {
      started.set(
        service,
        (async () => {
          const deps = Object.entries(services[service].depends_on ?? {});
          await Promise.all(
            deps.map(async ([dep, { condition = 'service_started' } = {}]) => {
              await start(dep);
              await waitFor(dep, condition);
            }),
          );
          run('podman', ['start', containerOf(service)]);
          say(
            `  started ${service}${deps.length ? ` (after ${deps.map(([d, c]) => `${d}: ${c?.condition ?? 'started'}`).join(', ')})` : ''}`,
          );
        })(),
      );
    }
    return started.get(service);
  };
  return Promise.all(Object.keys(services).map(start));
}

// ---------------------------------------------------------------------------------------------------
// Reachability.

/** The ports each container listens on (docker-compose.yml: PORT, INTERNAL_PORT; PostgreSQL, Redis). */
const LISTENS = {
  postgres: [5432],
  redis: [6379],
  auth: [3001],
  partners: [3002],
  'ledger-wallets': [3003],
  'webhook-dispatcher': [3004],
  orchestrator: [3000, 3100],
};
const PROBED = [...Object.keys(LISTENS), 'migrate'];

/**
 * The platform's edges and the apps with a route outside, from deploy/src/edges.ts: the table the
 * Kubernetes NetworkPolicies are built from (read through swc, as `npm run deploy:render` does).
 */
function platformTable() {
  const script =
    "const e = require('./deploy/src/edges.ts'); process.stdout.write(JSON.stringify({ edges: e.platformEdges(), egress: e.egressApps() }))";
  return JSON.parse(execFileSync(process.execPath, ['-r', '@swc-node/register', '-e', script], { cwd: root, encoding: 'utf8' }));
}

/**
 * What each container must reach (`needs`: the other end of each edge it starts, and `outside` when
 * it calls out) and may reach (`allowed`). A compose network has no direction, so the two ends of an
 * edge reach every port of each other: the callee reaching its caller back is allowed here (the
 * caller's service keys refuse it), anything else is not.
 */
function reachRules({ edges, egress }) {
  const needs = Object.fromEntries(PROBED.map((p) => [p, new Set()]));
  const allowed = Object.fromEntries(PROBED.map((p) => [p, new Set()]));
  for (const { from, to, port } of edges) {
    needs[from].add(`${to}:${port}`);
    for (const p of LISTENS[to] ?? []) allowed[from].add(`${to}:${p}`);
    for (const p of LISTENS[from] ?? []) allowed[to].add(`${from}:${p}`);
  }
  for (const app of egress) {
    needs[app].add('outside');
    allowed[app].add('outside');
  }
  return { needs, allowed };
}

/** A shell line that tries every target (host:port) at once and prints the ones that answered. */
function probeScript(targets) {
  return (
    targets
      .map(([label, host, port]) => `(timeout 3 bash -c 'exec 3<>/dev/tcp/${host}/${port}' 2>/dev/null && echo 'OPEN ${label}') &`)
      .join(' ') + ' wait; true'
  );
}

function tcpFromHost(host, port) {
  return run('timeout', ['3', 'bash', '-c', `exec 3<>/dev/tcp/${host}/${port}`], { allowFail: true }).status === 0;
}

async function checkReachability(composeFile, env) {
  const problems = [];
  const notes = [];
  const ipsOf = (service) => Object.entries(inspect(containerOf(service)).NetworkSettings.Networks ?? {});
  const shortNet = (net) => net.slice(project.length + 1);
  const { needs, allowed } = reachRules(platformTable());

  // From the host: only the published port. Nothing else of the stack may listen on the host's
  // addresses (what Podman publishes, and the sockets its conmon processes hold for it). The bridges'
  // own addresses are reachable from this host, as with any Linux bridge (Docker's too), and from no
  // other machine: they are shown, not judged.
  const published = run('podman', [
    'ps',
    '--filter',
    `label=io.podman.compose.project=${project}`,
    '--format',
    '{{.Names}} {{.Ports}}',
  ]).stdout;
  const expected = new Set([String(env.ORCHESTRATOR_PUBLISHED_PORT), String(env.MM_STANDIN_PUBLISHED_PORT)]);
  for (const line of published.trim().split('\n')) {
    const [name, ...ports] = line.split(' ');
    const service = name.slice(project.length + 1).replace(/_1$/, '');
    if (ports.join('').trim() && !['orchestrator', 'sms-standin'].includes(service))
      problems.push(`${service} publishes ${ports.join(' ')}`);
  }
  // a published port is held open on the host by the container's conmon process
  const conmons = run('podman', ['ps', '-q', '--filter', `label=io.podman.compose.project=${project}`])
    .stdout.split('\n')
    .filter(Boolean)
    .map((id) => run('podman', ['inspect', '--format', '{{.State.ConmonPid}}', id]).stdout.trim());
  const held = run('ss', ['-Hltnp'], { allowFail: true })
    .stdout.split('\n')
    .filter((l) => conmons.some((pid) => l.includes(`pid=${pid},`)));
  if (held.length === 0) problems.push('no host socket holds the published port (ss saw nothing of the stack)');
  for (const line of held) {
    const port = /:(\d+)\s/.exec(line.split(/\s+/).slice(3, 4).join(' ') + ' ')?.[1];
    if (port && !expected.has(port)) problems.push(`the host listens on ${port} for the stack: ${line.trim()}`);
  }
  if (!tcpFromHost('127.0.0.1', env.ORCHESTRATOR_PUBLISHED_PORT)) problems.push('the published port does not answer');
  const bridges = [];
  for (const [service, ports] of Object.entries(LISTENS)) {
    for (const [net, { IPAddress }] of ipsOf(service)) {
      for (const port of ports) if (tcpFromHost(IPAddress, port)) bridges.push(`${service}:${port}@${shortNet(net)}`);
    }
  }
  say(`  host ports of the stack: ${[...expected].join(', ')} only (the gateway; the stand-in's box); the gateway answers`);
  say(`  this host also reaches the bridges' addresses (no other machine does): ${bridges.length} service ports`);

  // From each container, every service port: by name (what the apps use; a name resolves only on a
  // network both share) and at each of the service's addresses (what a compromised container could
  // try). `outside` is the stand-in's address (an IP, so that name lookup is not what stops it) and
  // the machine's apt mirror, a real address beyond the host.
  const standinIp = ipsOf('sms-standin')[0][1].IPAddress;
  const mirror = run('getent', ['hosts', 'deb.debian.org'], { allowFail: true }).stdout.split(/\s+/)[0];
  const routed = new Set(
    Object.entries(composeFile.networks ?? {})
      .filter(([, n]) => n?.internal !== true)
      .map(([name]) => name),
  );
  const targets = [
    ...Object.entries(LISTENS).flatMap(([s, ports]) =>
      ports.flatMap((p) => [[`${s}:${p}`, s, p], ...ipsOf(s).map(([net, { IPAddress }]) => [`${s}:${p}@${shortNet(net)}`, IPAddress, p])]),
    ),
    ['outside', standinIp, 8080],
    ...(mirror ? [['mirror', mirror, 80]] : []),
  ];
  const table = [];
  for (const service of PROBED) {
    let out;
    if (service === 'migrate') {
      // a one-shot that has exited: the same image on the same networks stands in for it
      const nets = composeFile.services.migrate.networks.map((n) => `${project}_${n}`).join(',');
      out = run('podman', [
        'run',
        '--rm',
        '--network',
        nets,
        '--entrypoint',
        'bash',
        'cemac-mobile-money:local',
        '-c',
        probeScript(targets),
      ]).stdout;
    } else {
      out = run('podman', ['exec', containerOf(service), 'bash', '-c', probeScript(targets)]).stdout;
    }
    const open = new Set([...out.matchAll(/^OPEN (\S+)$/gm)].map((m) => m[1]).filter((t) => !t.startsWith(`${service}:`)));
    const byName = [...open].filter((t) => !t.includes('@'));
    const missing = [...needs[service]].filter((t) => !open.has(t));
    if (missing.length) problems.push(`${service} cannot reach ${missing.join(', ')}`);
    if (!needs[service].has('outside') && (open.has('outside') || open.has('mirror')))
      problems.push(`${service} reaches outside though it needs not`);
    const beyondByName = byName.filter((t) => t !== 'mirror' && !allowed[service].has(t));
    if (beyondByName.length) problems.push(`${service} reaches ${beyondByName.join(', ')}, which no edge allows`);
    // by address: a port open on a network without a route outside is a hole in the layout; one
    // open on another app's `-out` network is routed by this host between bridges (Podman 4.3 does
    // not keep bridges apart as Docker does): shown, not judged
    const byAddress = [...open].filter((t) => t.includes('@') && !allowed[service].has(t.slice(0, t.indexOf('@'))));
    const holes = byAddress.filter((t) => !routed.has(t.slice(t.indexOf('@') + 1)));
    const routedOnly = byAddress.filter((t) => routed.has(t.slice(t.indexOf('@') + 1)));
    if (holes.length) problems.push(`${service} reaches ${holes.join(', ')} by address, which no edge allows`);
    if (routedOnly.length) notes.push(`${service} -> ${routedOnly.join(' ')}`);
    const back = byName.filter((t) => allowed[service].has(t) && !needs[service].has(t));
    table.push(
      `  ${service.padEnd(19)} reaches ${[...needs[service]].filter((t) => open.has(t)).join(' ') || 'nothing'}` +
        `${open.has('mirror') ? ' (+ the apt mirror)' : ''}${back.length ? `; over the same links (a network has no direction): ${back.join(' ')}` : ''}`,
    );
  }
  say(table.join('\n'));
  say('  (the edges come from deploy/src/edges.ts; each container was also tried at every address of every service)');
  if (notes.length)
    say(
      `  routed between the apps' -out networks by this host (Podman 4.3 keeps no bridges apart; Docker does):\n    ${notes.join('\n    ')}`,
    );
  if (problems.length) throw new Failure(`reachability:\n  ${problems.join('\n  ')}`);
}

// ---------------------------------------------------------------------------------------------------

function teardown() {
  if (workDir && existsSync(join(workDir, 'docker-compose.yml'))) compose(['down', '-v', '-t', '5'], { allowFail: true });
  // whatever podman-compose left (a failed create, a network): everything labelled with the project
  const label = `label=io.podman.compose.project=${project}`;
  const ids = (kind, fmt) =>
    run('podman', [...kind, '--filter', label, '--format', fmt], { allowFail: true })
      .stdout.split('\n')
      .filter(Boolean);
  const containers = ids(['ps', '-a'], '{{.ID}}');
  if (containers.length) run('podman', ['rm', '-f', '-t', '5', ...containers], { allowFail: true });
  const networks = ids(['network', 'ls'], '{{.Name}}');
  if (networks.length) run('podman', ['network', 'rm', '-f', ...networks], { allowFail: true });
  const volumes = ids(['volume', 'ls'], '{{.Name}}');
  if (volumes.length) run('podman', ['volume', 'rm', '-f', ...volumes], { allowFail: true });
  if (workDir) rmSync(workDir, { recursive: true, force: true });
}

async function main() {
  if (process.getuid?.() !== 0) throw new Failure('run as root: it installs Podman and runs containers as root (CI does)');
  const composeFile = load(readFileSync(join(root, 'docker-compose.yml'), 'utf8'), { schema: CORE_SCHEMA.withTags(mergeTag) });

  await phase('1. Podman and base images', () => stream('bash', [join(here, 'images.sh')], IMAGES));
  teardown(); // a run killed before its own teardown leaves its project behind

  workDir = mkdtempSync(join(tmpdir(), 'mm-compose-'));
  const env = generateEnv({ gateway: await freePort(), standin: await freePort() });
  copyFileSync(join(root, 'docker-compose.yml'), join(workDir, 'docker-compose.yml'));
  // the copy's build context and the stand-in's script are the repository's
  writeFileSync(
    join(workDir, 'compose.test.yml'),
    readFileSync(join(here, 'compose.test.yml'), 'utf8').replaceAll('./scripts/compose/', `${here}/`) +
      Object.keys(composeFile.services)
        .filter((s) => composeFile.services[s].build)
        .reduce((acc, s) => `${acc}  ${s}:\n    build: ${root}\n`, ''),
  );
  writeFileSync(
    join(workDir, '.env'),
    Object.entries(env)
      .map(([k, v]) => `${k}='${v}'`)
      .join('\n') + '\n',
    { mode: 0o600 },
  );

  await phase('2. platform image (Dockerfile)', async () => {
    const npmCache = run('npm', ['config', 'get', 'cache']).stdout.trim();
    const ca = '/etc/ssl/certs/ca-certificates.crt';
    // The build reaches the npm registry; here through a proxy whose CA only the host's bundle holds
    // (NODE_EXTRA_CA_CERTS, a build argument), and with the host's npm cache laid over (`:O`: what the
    // build writes there is thrown away) so that `npm ci` downloads only what the host lacks.
    const buildArgs = [
      ...(existsSync(ca) ? [`-v ${ca}:/run/mm-host-ca.crt:ro`] : []),
      ...(existsSync(npmCache) ? [`-v ${npmCache}:/root/.npm:O`] : []),
    ];
    const buildOne = Object.keys(composeFile.services).find((s) => composeFile.services[s].build);
    compose([
      ...(buildArgs.length ? [`--podman-build-args=${buildArgs.join(' ')}`] : []),
      'build',
      '--build-arg',
      `NODE_IMAGE=${IMAGES.MM_NODE_IMAGE}`,
      ...(existsSync(ca) ? ['--build-arg', 'NODE_EXTRA_CA_CERTS=/run/mm-host-ca.crt'] : []),
      buildOne,
    ]);
    say(
      `  built ${composeFile.services[buildOne].image} (the image of ${Object.keys(composeFile.services)
        .filter((s) => composeFile.services[s].build)
        .join(', ')})`,
    );
  });

  const merged = { ...composeFile.services, 'sms-standin': {} };
  await phase('3. stack up and healthy', async () => {
    compose(['up', '--no-build', '--no-start']);
    await startInOrder(merged);
    await Promise.all(
      Object.keys(composeFile.services)
        .filter((s) => composeFile.services[s].healthcheck)
        .map((s) => waitFor(s, 'service_healthy')),
    );
    say('  every service with a health check is healthy');
  });

  await phase('4. npm run demo against the published port', async () => {
    const officerFile = join(root, '.data', 'demo', 'compliance-officer.json');
    const kept = existsSync(officerFile) ? readFileSync(officerFile) : undefined;
    try {
      await stream('npm', ['run', 'demo'], {
        DEMO_GATEWAY_URL: `http://127.0.0.1:${env.ORCHESTRATOR_PUBLISHED_PORT}`,
        DEMO_SMS_BOX_URL: `http://127.0.0.1:${env.MM_STANDIN_PUBLISHED_PORT}`,
        BOOTSTRAP_ADMIN_PHONE: env.BOOTSTRAP_ADMIN_PHONE,
        BOOTSTRAP_ADMIN_PIN: env.BOOTSTRAP_ADMIN_PIN,
        BOOTSTRAP_ADMIN_TOTP_SECRET: env.BOOTSTRAP_ADMIN_TOTP_SECRET,
      });
    } finally {
      // the demo keeps its officer for the next run against `npm start`: leave that file as it was
      if (kept) writeFileSync(officerFile, kept, { mode: 0o600 });
      else rmSync(officerFile, { force: true });
    }
    const received = await (await fetch(`http://127.0.0.1:${env.MM_STANDIN_PUBLISHED_PORT}/received`)).json();
    say(`  the SMS provider stand-in received ${received.sms} messages`);
    if (received.sms === 0) throw new Failure('no SMS reached the provider stand-in');
  });

  await phase('5. reachability', () => checkReachability(composeFile, env));
}

// CI's time limit or ^C: the containers still go (the next run would also sweep them first)
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    say(`\n${signal}: tearing down`);
    teardown();
    process.exit(1);
  });
}

let failed;
try {
  await main();
} catch (error) {
  failed = error;
} finally {
  await phase('6. teardown', async () => teardown());
}
say(`\ntimings: ${timings.map(([n, s]) => `${n.replace(/^\d\. /, '')} ${s.toFixed(0)} s`).join(', ')}`);
if (failed) {
  process.stderr.write(`\ntest:compose FAILED: ${failed instanceof Failure ? failed.message : (failed.stack ?? failed)}\n`);
  process.exit(1);
}
say('test:compose passed: the demo ran against the containers, and each reaches exactly what the platform edges allow');
