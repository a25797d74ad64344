/**
 * `npx tsx bench/profile-summary.ts <file.cpuprofile> [from-s to-s] [writes]`: where a V8 CPU profile
 * (`BENCH_PROFILE`, in /tmp/prof) spent its samples. Prints the busy samples per second (to pick the
 * timed window), then, over the window (default: the whole profile), the top functions and packages
 * by self time and the top frames of our own code (src/) by inclusive time. Given `writes` (the
 * writes done in the window), times are also shown per write. Shares, not rates: on a loaded
 * machine the proportions hold where the milliseconds do not.
 */
import fs from 'node:fs';
import path from 'node:path';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
}

const [file, fromArg, toArg, writesArg] = process.argv.slice(2);
if (!file) throw new Error('usage: profile-summary.ts <file.cpuprofile> [from-s to-s] [writes]');
const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

/** The repository's own files (this script's parent folder), as the profile's URLs name them. */
const root = path.resolve(__dirname, '..');
const escapedRoot = root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const ownFile = new RegExp(`${escapedRoot}/((src|bench|dev|test)/[^/]+)`);
const ownSource = new RegExp(`${escapedRoot}/src/`);

const idle = new Set(['(idle)', '(program)']);
/** The package a frame belongs to: node_modules/<pkg>, our src/bench/dev folders, Node's internals, or V8's pseudo-frames. */
function packageOf(url: string, name: string): string {
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + 'node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  const own = ownFile.exec(url);
  if (own) return own[1]!;
  if (url.startsWith('node:')) return 'node:' + url.slice(5).split('/')[0];
  if (!url) return name.startsWith('(') ? name : '(native)';
  return url;
}
/** A function by name and place: our own files by their path, a package's by the package. */
const label = (n: Node) => {
  const { functionName, url, lineNumber } = n.callFrame;
  const place = url.startsWith(`file://${root}/`) || url.startsWith(`${root}/`) ? url.slice(url.indexOf(root) + root.length + 1) : packageOf(url, functionName);
  return `${functionName || '(anonymous)'} ${place}:${lineNumber + 1}`;
};

// Sample times (ms from the start).
const times: number[] = [];
let t = 0;
for (const delta of profile.timeDeltas) times.push((t += delta / 1000));

const perSecond = new Map<number, number>();
profile.samples.forEach((id, i) => {
  if (idle.has(byId.get(id)!.callFrame.functionName)) return;
  const second = Math.floor(times[i]! / 1000);
  perSecond.set(second, (perSecond.get(second) ?? 0) + (profile.timeDeltas[i + 1] ?? 0) / 1000);
});
console.log('busy ms per second of the profile:');
console.log([...perSecond].map(([s, ms]) => `${s}:${ms.toFixed(0)}`).join(' '));

const from = fromArg ? Number(fromArg) * 1000 : 0;
const to = toArg ? Number(toArg) * 1000 : Infinity;
const writes = writesArg ? Number(writesArg) : 0;
const self = new Map<string, number>();
const packages = new Map<string, number>();
/** Node's internals, V8's natives and the GC charged to the nearest package above them on the stack. */
const charged = new Map<string, number>();
const inclusive = new Map<string, number>();
let busy = 0;
const add = (map: Map<string, number>, key: string, ms: number) => map.set(key, (map.get(key) ?? 0) + ms);
profile.samples.forEach((id, i) => {
  if (times[i]! < from || times[i]! > to) return;
  const node = byId.get(id)!;
  const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
  if (idle.has(node.callFrame.functionName)) return;
  busy += ms;
  add(self, label(node), ms);
  add(packages, packageOf(node.callFrame.url, node.callFrame.functionName), ms);
  let owner = packageOf(node.callFrame.url, node.callFrame.functionName);
  for (let at = parent.get(id); at !== undefined && /^(node:|\(native\)|\(garbage)/.test(owner); at = parent.get(at)) {
    const frame = byId.get(at)!.callFrame;
    if (frame.functionName === '(root)') break;
    owner = packageOf(frame.url, frame.functionName);
  }
  add(charged, owner, ms);
  // Each of our own functions on the stack once (recursion counted once).
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const frame = byId.get(at)!;
    if (!ownSource.test(frame.callFrame.url)) continue;
    const key = label(frame);
    if (seen.has(key)) continue;
    add(inclusive, key, ms);
    seen.add(key);
  }
});
const show = (title: string, map: Map<string, number>, count: number) => {
  console.log(`\n${title}`);
  for (const [key, ms] of [...map].sort((a, b) => b[1] - a[1]).slice(0, count)) {
    const perWrite = writes ? `${(ms / writes).toFixed(2).padStart(6)} ms/write ` : '';
    console.log(`${((100 * ms) / busy).toFixed(1).padStart(5)}% ${perWrite}${key}`);
  }
};
console.log(`\nwindow ${from / 1000}-${to / 1000} s: ${busy.toFixed(0)} busy ms${writes ? `, ${(busy / writes).toFixed(1)} ms per write` : ''}`);
show('self time by package', packages, 25);
show('self time by package, internals charged to the package calling them', charged, 25);
show('self time by function', self, 40);
show('inclusive time of our own functions (src/)', inclusive, 40);
