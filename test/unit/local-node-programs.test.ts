/** Extra programs for the local node: LOCAL_NODE_PROGRAMS parsing and the hand-assembled test program. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { programsFromSpec } from '../../dev/local-node/programs';
import { NodeRuntime } from '../../dev/local-node/runtime';
import { decodeBase58 } from '../../dev/local-node/base58';
import { returnCodeProgramElf } from '../support/sbpf-program';

const PROGRAM_A = 'HooKzFZkHbhDvYWSKGEyYvMNgTNXnNZwsoL8PhRqsWhW';
const PROGRAM_B = '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU';

describe('local node programs', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'node-programs-'));
    fs.writeFileSync(path.join(dir, 'a.so'), returnCodeProgramElf(0));
    fs.writeFileSync(path.join(dir, 'b.so'), returnCodeProgramElf(7));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('LOCAL_NODE_PROGRAMS is <programId>=<path>[,...], paths relative to the base directory', () => {
    expect(programsFromSpec(undefined)).toEqual([]);
    expect(programsFromSpec(' ')).toEqual([]);
    const programs = programsFromSpec(` ${PROGRAM_A}=a.so , ${PROGRAM_B}=${path.join(dir, 'b.so')},`, dir);
    expect(programs.map((p) => p.programId)).toEqual([PROGRAM_A, PROGRAM_B]);
    expect(programs[0].elf).toEqual(returnCodeProgramElf(0));
    expect(programs[1].elf).toEqual(returnCodeProgramElf(7));
  });

  it('refuses malformed entries, bad addresses and missing files, naming them', () => {
    expect(() => programsFromSpec('a.so', dir)).toThrow('LOCAL_NODE_PROGRAMS: "a.so" is not <programId>=<path.so>');
    expect(() => programsFromSpec(`${PROGRAM_A}=`, dir)).toThrow(/is not <programId>=<path.so>/);
    expect(() => programsFromSpec('notanaddress=a.so', dir)).toThrow('local node program: "notanaddress" is not a base58 address');
    expect(() => programsFromSpec(`${PROGRAM_A}=missing.so`, dir)).toThrow(/ENOENT/);
  });

  it('the fixture under test/fixtures/programs is the generated no-op program', () => {
    const fixture = fs.readFileSync(path.join(__dirname, '../fixtures/programs/noop.so'));
    expect(new Uint8Array(fixture)).toEqual(returnCodeProgramElf(0));
    expect(fixture.length).toBe(296);
  });

  it('the node deploys programs at start and refuses bytes that are no program', () => {
    const runtime = NodeRuntime.open({ log: () => {}, programs: [{ programId: PROGRAM_A, elf: returnCodeProgramElf(0) }] });
    try {
      expect(runtime.svm.getAccount(decodeBase58(PROGRAM_A)!)?.executable()).toBe(true);
      expect(() => runtime.addProgram({ programId: PROGRAM_B, elf: new Uint8Array(64) })).toThrow(/local node: cannot load program 7xKX/);
    } finally {
      runtime.close();
    }
  });
});
