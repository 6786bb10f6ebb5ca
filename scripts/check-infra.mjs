// `npm run infra:check`: compiles and lints infra/ with the official Bicep CLI and writes what the
// template tests read to build/infra/. The CLI comes from NuGet only (bicep-cli.mjs). Any compiler or linter error or warning fails the check; Info is shown only. Without the
// .NET SDK it says how to get Bicep and fails only in CI.
//
//   node scripts/check-infra.mjs [--if-stale] [--infra <dir>] [--out <dir>]
//
// --if-stale: nothing to do when the outputs were built from the same inputs (the tests ask so).
// Outputs exist only after a check that passed on the current inputs: a failed or impossible
// check removes them, so no reader ever sees JSON of an older template.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { bicepCli } from './bicep-cli.mjs';

const BICEP_VERSION = '0.49.2';
const self = fileURLToPath(import.meta.url);
const root = join(dirname(self), '..');
const { values: options } = parseArgs({
  options: {
    'if-stale': { type: 'boolean', default: false },
    infra: { type: 'string', default: 'infra' },
    out: { type: 'string', default: join('build', 'infra') },
  },
});
const infraDir = resolve(root, options.infra);
const outDir = resolve(root, options.out);
const configFile = join(root, 'bicepconfig.json');
const inCi = !['', '0', 'false'].includes(process.env.CI ?? '');

// What azd would hand to readEnvironmentVariable() and to the deployment, fixed so that the
// outputs do not depend on who runs the check. The principal stands for the signed-in operator.
const DEPLOYMENT = {
  env: {
    AZURE_ENV_NAME: 'infra-check',
    AZURE_LOCATION: 'swedencentral',
    AZURE_PRINCIPAL_ID: '00000000-0000-4000-8000-00000000c0de',
    AZURE_PRINCIPAL_TYPE: 'User',
    ENABLE_ENTRA_AUTH: 'false',
    API_CLIENT_ID: '',
    ALERT_EMAIL: 'provisioning-operators@example.com',
    DURABLE_BACKEND: 'scheduler',
  },
  subscriptionId: '00000000-0000-4000-8000-000000000001',
  tenantId: '00000000-0000-4000-8000-000000000002',
  resourceGroup: 'rg-infra-check',
};

/**
 * The other deployments the check evaluates, each a change of azd settings against DEPLOYMENT:
 * its parameters and snapshot are written as `<name>.<variant>.parameters.json` and
 * `<name>.<variant>.snapshot.json` beside the default ones.
 */
const VARIANTS = {
  'storage-backend': { DURABLE_BACKEND: 'storage' },
  'entra-sign-in': {
    ENABLE_ENTRA_AUTH: 'true',
    API_CLIENT_ID: '00000000-0000-4000-8000-00000000a9b1',
  },
};

/** Every .bicep and .bicepparam file under a folder, sorted. */
function sourceFiles(dir) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...sourceFiles(path));
    else if (/\.bicep(param)?$/.test(entry.name)) found.push(path);
  }
  return found.sort();
}

/**
 * The files the sources read at compile time (loadTextContent, loadJsonContent, ...): a change in
 * a workbook or host.json changes the compiled template as much as a change in Bicep.
 */
function loadedFiles(files) {
  const loaded = new Set();
  for (const file of files) {
    for (const [, path] of readFileSync(file, 'utf8').matchAll(/\bload\w*\(\s*'([^']+)'/g)) {
      loaded.add(resolve(dirname(file), path));
    }
  }
  return [...loaded].filter((path) => existsSync(path)).sort();
}

/**
 * Changes with the compiler version, its configuration, this script, every source file and
 * every file a source loads.
 */
function inputsHash(files) {
  const hash = createHash('sha256').update(BICEP_VERSION);
  for (const path of [configFile, self, ...files, ...loadedFiles(files)]) {
    hash.update(`\0${relative(root, path)}\0`).update(readFileSync(path));
  }
  return hash.digest('hex');
}

const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** One check at a time per output folder: two test workers may ask at once. */
async function withLock(run) {
  const lock = `${outDir}.lock`;
  mkdirSync(dirname(lock), { recursive: true });
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'pid'), String(process.pid));
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      if (!lockHolderAlive(lock)) rmSync(lock, { recursive: true, force: true });
      else if (Date.now() > deadline) throw new Error(`${lock} held for more than 10 minutes`);
      else sleep(250);
    }
  }
  try {
    return await run();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function lockHolderAlive(lock) {
  let pid;
  try {
    pid = Number(readFileSync(join(lock, 'pid'), 'utf8'));
  } catch {
    return true; // created a moment ago, its pid not written yet
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/** Runs the CLI in the infra folder with the fixed deployment environment (and a variant's). */
function run(cli, args, variantEnv = {}) {
  return new Promise((done, fail) => {
    const env = { ...process.env, ...DEPLOYMENT.env, ...variantEnv };
    const child = spawn(cli, args, { cwd: infraDir, env });
    const out = [];
    const err = [];
    child.stdout.on('data', (chunk) => out.push(chunk));
    child.stderr.on('data', (chunk) => err.push(chunk));
    child.on('error', fail);
    child.on('close', (status) =>
      done({
        status,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      }),
    );
  });
}

/** Bicep's diagnostics from SARIF text: file, line, level (Error, Warning, Info), code, message. */
function diagnosticsOf(sarif, command) {
  let log;
  try {
    log = JSON.parse(sarif);
  } catch (error) {
    throw new Error(`bicep ${command} printed no SARIF (${error.message}):\n${sarif}`);
  }
  return log.runs.flatMap((sarifRun) =>
    (sarifRun.results ?? []).map((result) => {
      const location = result.locations?.[0]?.physicalLocation;
      const file = location ? fileURLToPath(location.artifactLocation.uri) : '(no file)';
      // SARIF: a result without a level is a warning; Bicep's Info is a note.
      const level = { error: 'Error', warning: 'Warning', note: 'Info', none: 'Info' };
      return {
        file: relative(root, file),
        line: location?.region?.startLine ?? 0,
        level: level[result.level ?? 'warning'],
        code: result.ruleId,
        message: result.message.text.replace(/\s*\[https:\/\/aka\.ms\/bicep\/[^\]]*\]$/, ''),
      };
    }),
  );
}

/** The template a parameters file is for: its `using` declaration. */
function templateOf(paramsFile) {
  const using = /^using\s+'([^']+)'/m.exec(readFileSync(paramsFile, 'utf8'))?.[1];
  if (using === undefined) throw new Error(`${paramsFile} has no using declaration`);
  return resolve(dirname(paramsFile), using);
}

/**
 * The top-level files of the infra folder: each .bicepparam file (with the template it uses),
 * and each template no parameters file uses. Modules live in subfolders.
 */
function entryPoints(files) {
  const top = files.filter((file) => dirname(file) === infraDir);
  const params = top.filter((file) => file.endsWith('.bicepparam'));
  const used = params.map(templateOf);
  return {
    params,
    used,
    templates: top.filter((file) => file.endsWith('.bicep') && !used.includes(file)),
  };
}

/**
 * Builds one parameters file: the template, the parameters and the deployment snapshot, then the
 * parameters and snapshot of each variant. One after the other: Bicep writes every snapshot of a
 * parameters file to the same place.
 */
async function buildParams(cli, file) {
  const name = basename(file, '.bicepparam');
  const build = (variantEnv) =>
    run(
      cli,
      [
        'build-params',
        basename(file),
        '--stdout',
        '--no-restore',
        '--config',
        configFile,
        '--diagnostics-format',
        'sarif',
      ],
      variantEnv,
    );
  const built = await build({});
  const diagnostics = diagnosticsOf(built.stderr, `build-params ${basename(file)}`);
  if (built.status !== 0) return { ok: false, diagnostics, outputs: [] };
  const { parametersJson, templateJson } = JSON.parse(built.stdout);
  const outputs = [
    [`${name}.json`, templateJson],
    [`${name}.parameters.json`, parametersJson],
    [`${name}.snapshot.json`, await snapshotOf(cli, file, JSON.parse(templateJson), {})],
  ];
  for (const [variant, variantEnv] of Object.entries(VARIANTS)) {
    const variantBuilt = await build(variantEnv);
    diagnostics.push(...diagnosticsOf(variantBuilt.stderr, `build-params ${variant}`));
    if (variantBuilt.status !== 0) return { ok: false, diagnostics, outputs: [] };
    const snapshot = await snapshotOf(cli, file, JSON.parse(templateJson), variantEnv);
    outputs.push(
      [`${name}.${variant}.parameters.json`, JSON.parse(variantBuilt.stdout).parametersJson],
      [`${name}.${variant}.snapshot.json`, snapshot],
    );
  }
  return { ok: true, diagnostics, outputs };
}

/** What the deployment would create, evaluated by Bicep itself with the fixed deployment values. */
async function snapshotOf(cli, file, template, variantEnv) {
  const scope = /\/(\w+)DeploymentTemplate\.json#$/.exec(template.$schema)?.[1] ?? 'resourceGroup';
  const result = await run(
    cli,
    [
      'snapshot',
      basename(file),
      '--mode',
      'overwrite',
      '--config',
      configFile,
      '--subscription-id',
      DEPLOYMENT.subscriptionId,
      '--tenant-id',
      DEPLOYMENT.tenantId,
      '--location',
      DEPLOYMENT.env.AZURE_LOCATION,
      '--deployment-name',
      'infra-check',
      ...(scope === 'subscription' ? [] : ['--resource-group', DEPLOYMENT.resourceGroup]),
    ],
    variantEnv,
  );
  // Bicep writes the snapshot beside the parameters file; it moves to the output folder.
  const written = file.replace(/\.bicepparam$/, '.snapshot.json');
  try {
    if (result.status !== 0 || !existsSync(written)) {
      throw new Error(`bicep snapshot ${basename(file)} failed:\n${result.stdout}${result.stderr}`);
    }
    return readFileSync(written, 'utf8');
  } finally {
    rmSync(written, { force: true });
  }
}

async function buildTemplate(cli, file) {
  const built = await run(cli, [
    'build',
    basename(file),
    '--stdout',
    '--no-restore',
    '--config',
    configFile,
    '--diagnostics-format',
    'sarif',
  ]);
  return {
    ok: built.status === 0,
    diagnostics: diagnosticsOf(built.stderr, `build ${basename(file)}`),
    outputs: built.status === 0 ? [[`${basename(file, '.bicep')}.json`, built.stdout]] : [],
  };
}

/** The local modules a template uses, and theirs, by the paths in its `module` declarations. */
function reachable(templates) {
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file) || !existsSync(file)) return;
    seen.add(file);
    for (const [, path] of readFileSync(file, 'utf8').matchAll(/^\s*module\s+\w+\s+'([^':]+)'/gm)) {
      visit(resolve(dirname(file), path));
    }
  };
  templates.forEach(visit);
  return seen;
}

/**
 * Builds every entry point (which compiles and lints the modules it uses) and lints on its own
 * each file no entry point reaches, such as a module not wired in yet.
 */
async function check(cli, files) {
  const { params, used, templates } = entryPoints(files);
  const covered = reachable([...used, ...templates]);
  const lint = files
    .filter((file) => file.endsWith('.bicep') && !covered.has(file))
    .map((file) =>
      run(cli, [
        'lint',
        relative(infraDir, file),
        '--no-restore',
        '--config',
        configFile,
        '--diagnostics-format',
        'sarif',
      ]).then((linted) => ({
        ok: linted.status === 0,
        diagnostics: diagnosticsOf(linted.stdout, `lint ${relative(infraDir, file)}`),
        outputs: [],
      })),
    );
  const results = await Promise.all([
    ...lint,
    ...params.map((file) => buildParams(cli, file)),
    ...templates.map((file) => buildTemplate(cli, file)),
  ]);
  const unique = new Map();
  for (const d of results.flatMap((result) => result.diagnostics)) {
    unique.set(`${d.file}:${d.line}:${d.code}:${d.message}`, d);
  }
  const diagnostics = [...unique.values()].sort(
    (a, b) => a.file.localeCompare(b.file) || a.line - b.line,
  );
  const count = (level) => diagnostics.filter((d) => d.level === level).length;
  return {
    ok: results.every((result) => result.ok) && count('Error') + count('Warning') === 0,
    diagnostics,
    outputs: results.flatMap((result) => result.outputs),
    summary: `${files.length} files, ${count('Error')} errors, ${count('Warning')} warnings, ${count('Info')} infos`,
  };
}

const HOW_TO_GET_BICEP = [
  `  Install the .NET SDK 8 or later (https://dot.net), then run \`npm run infra:check\` again:`,
  `  it fetches Bicep ${BICEP_VERSION} from NuGet once and keeps it in the NuGet cache.`,
  '  Without .NET, `az bicep build --file infra/main.bicep` compiles (Azure CLI; its Bicep',
  '  version may differ, and it writes nothing the template tests read).',
].join('\n');

async function main() {
  const started = Date.now();
  const files = sourceFiles(infraDir);
  const inputs = inputsHash(files);
  const stampFile = join(outDir, 'check.json');
  return withLock(async () => {
    if (options['if-stale'] && existsSync(stampFile)) {
      if (JSON.parse(readFileSync(stampFile, 'utf8')).inputs === inputs) return 0;
    }
    rmSync(outDir, { recursive: true, force: true });
    const found = bicepCli(BICEP_VERSION);
    if (found.missing !== undefined) {
      console.error(`infra-check: skipped: ${found.missing}, so there is no Bicep CLI.`);
      console.error(HOW_TO_GET_BICEP);
      if (inCi) console.error('  CI is set: that is a failure.');
      return inCi ? 1 : 0;
    }
    const result = await check(found.cli, files);
    for (const d of result.diagnostics) {
      console.log(`${d.file}(${d.line}): ${d.level} ${d.code}: ${d.message}`);
    }
    if (!result.ok) {
      console.error(`infra-check: FAILED (Bicep ${BICEP_VERSION}; ${result.summary})`);
      return 1;
    }
    mkdirSync(outDir, { recursive: true });
    for (const [name, text] of result.outputs) writeFileSync(join(outDir, name), text);
    // The stamp goes last (renamed into place): it marks the folder complete and current.
    const stamp = {
      bicep: BICEP_VERSION,
      cli: found.cli,
      inputs,
      outputs: result.outputs.map(([name]) => name),
    };
    writeFileSync(`${stampFile}.tmp`, `${JSON.stringify(stamp, null, 2)}\n`);
    renameSync(`${stampFile}.tmp`, stampFile);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(
      `infra-check: passed (Bicep ${BICEP_VERSION}; ${result.summary}); ${relative(root, outDir)}/ written in ${seconds} s`,
    );
    return 0;
  });
}

try {
  process.exitCode = await main();
} catch (error) {
  console.error(`infra-check: FAILED: ${error.message}`);
  process.exitCode = 1;
}
