// Adds the lockfile entries of other platforms' native packages (optionalDependencies such as
// @swc/core-darwin-arm64) when npm could not resolve them. The npm registry reachable from this
// workplace serves only some platforms' binaries, so `npm install` here leaves them out and
// `npm ci` then refuses the lockfile as out of sync. Each entry is named for its platform and
// skipped by npm on every other one. Run after `npm install`: `node scripts/complete-lockfile.mjs`.
import fs from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
const packages = lock.packages;

const cpus = ['x64', 'arm64', 'arm', 'ia32', 'ppc64', 's390x', 'riscv64', 'loong64', 'wasm32'];
const oses = ['darwin', 'linux', 'win32', 'android', 'freebsd', 'openbsd', 'netbsd', 'sunos', 'aix', 'openharmony'];

/** os, cpu and libc from a platform package's name, e.g. core-linux-arm64-musl. */
function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((p) => oses.includes(p));
  const cpu = parts.find((p) => cpus.includes(p)) ?? (parts.includes('arm') || parts.includes('armv7') ? 'arm' : undefined);
  if (!os || !cpu) return undefined;
  const libc = os === 'linux' ? (parts.includes('musl') || parts.includes('musleabihf') ? 'musl' : 'glibc') : undefined;
  return { os: [os], cpu: [cpu], ...(libc ? { libc: [libc] } : {}) };
}

let added = 0;
for (const [path, entry] of Object.entries(packages)) {
  for (const [dep, spec] of Object.entries(entry.optionalDependencies ?? {})) {
    const where = `${path ? path + '/' : ''}node_modules/${dep}`;
    const hoisted = `node_modules/${dep}`;
    if (packages[where] || packages[hoisted]) continue;
    const platform = platformOf(dep);
    if (!platform || !/^\d+\.\d+\.\d+$/.test(spec)) continue;
    packages[hoisted] = { version: spec, ...(entry.dev ? { dev: true } : {}), optional: true, ...platform };
    added++;
  }
}
fs.writeFileSync(file, JSON.stringify(lock, null, 2) + '\n');
console.log(`complete-lockfile: added ${added} platform entries`);
