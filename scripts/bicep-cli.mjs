// The official Bicep CLI, from NuGet only: the package Azure.Bicep.CommandLine.<rid> is restored
// once by a throwaway project with a PackageDownload into the NuGet cache, and used from there.
import { spawnSync } from 'node:child_process';
import {
  accessSync,
  chmodSync,
  constants,
  existsSync,
  mkdtempSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

const quietDotnet = {
  DOTNET_CLI_TELEMETRY_OPTOUT: '1',
  DOTNET_NOLOGO: '1',
  DOTNET_SKIP_FIRST_TIME_EXPERIENCE: '1',
};

/** NuGet's runtime identifier of this machine, as the Bicep CLI packages are named. */
function runtimeId() {
  const os = { linux: 'linux', darwin: 'osx', win32: 'win' }[process.platform];
  const arch = { x64: 'x64', arm64: 'arm64' }[process.arch];
  if (os === undefined || arch === undefined) {
    throw new Error(`no Bicep CLI package for ${process.platform}-${process.arch}`);
  }
  return `${os}-${arch}`;
}

function dotnet(args) {
  const result = spawnSync('dotnet', args, {
    encoding: 'utf8',
    env: { ...process.env, ...quietDotnet },
  });
  return result.status === 0 ? result.stdout.trim() : undefined;
}

/**
 * The Bicep CLI from the NuGet cache, restored first when it is not there yet; or the reason
 * there is none. The package folder carries the version, so the file found is that version.
 */
export function bicepCli(version) {
  const packageId = `Azure.Bicep.CommandLine.${runtimeId()}`;
  const exe = (packages) =>
    join(
      packages,
      packageId.toLowerCase(),
      version,
      'tools',
      process.platform === 'win32' ? 'bicep.exe' : 'bicep',
    );
  const usual = exe(process.env.NUGET_PACKAGES ?? join(homedir(), '.nuget', 'packages'));
  if (existsSync(usual)) return { cli: executable(usual) };
  const sdk = dotnet(['--version']);
  if (sdk === undefined) return { missing: 'the .NET SDK (dotnet) is not installed' };
  const listed = dotnet(['nuget', 'locals', 'global-packages', '--list']);
  const cli = listed ? exe(listed.replace(/^global-packages:\s*/, '')) : usual;
  if (!existsSync(cli)) restore(packageId, version, sdk);
  if (!existsSync(cli)) throw new Error(`dotnet restore finished, yet ${cli} is not there`);
  return { cli: executable(cli) };
}

/** A throwaway project whose one purpose is to have NuGet download and unpack the package. */
function restore(packageId, version, sdkVersion) {
  const scratch = mkdtempSync(join(tmpdir(), 'bicep-cli-restore-'));
  try {
    const project = join(scratch, 'bicep-cli.csproj');
    // The SDK's own target framework: restoring for it downloads no targeting pack.
    const framework = `net${sdkVersion.split('.')[0]}.0`;
    writeFileSync(
      project,
      [
        '<Project Sdk="Microsoft.NET.Sdk">',
        `  <PropertyGroup><TargetFramework>${framework}</TargetFramework></PropertyGroup>`,
        `  <ItemGroup><PackageDownload Include="${packageId}" Version="[${version}]" /></ItemGroup>`,
        '</Project>',
        '',
      ].join('\n'),
    );
    console.log(`infra-check: fetching ${packageId} ${version} from NuGet (kept in its cache)`);
    const result = spawnSync('dotnet', ['restore', project, '--nologo', '--verbosity', 'quiet'], {
      cwd: scratch,
      encoding: 'utf8',
      env: { ...process.env, ...quietDotnet },
    });
    if (result.status !== 0) {
      throw new Error(`dotnet restore of ${packageId} failed:\n${result.stdout}${result.stderr}`);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function executable(path) {
  if (process.platform === 'win32') return path;
  try {
    accessSync(path, constants.X_OK);
  } catch {
    chmodSync(path, 0o755);
  }
  return path;
}
