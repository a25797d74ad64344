import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import {
  address,
  appendTransactionMessageInstructions,
  compileTransaction,
  createTransactionMessage,
  generateKeyPairSigner,
  getTransactionSize,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Blockhash,
} from '@solana/kit';
import { freezeHandler, type FreezeData } from '../../src/activities/operations/positions/freeze-position.handler';
import { FREEZE_ALL_BATCH } from '../../src/domain/operations/positions/freeze-position.rules';
import type { OperationRequest, OperationResolved } from '../../src/activities/operations/operation-handler';
import type { FreezePositionItemData } from '../../src/domain/operations/positions/position.inputs';

const newAddress = async () => (await generateKeyPairSigner()).address;

describe('Freeze all positions: one batch fits one network transaction', () => {
  it(`fits ${FREEZE_ALL_BATCH} positions in 1232 bytes in the worst case (own fee payer, separate authority, compute budget price and limit)`, async () => {
    const data: FreezeData = {
      positions: await Promise.all(Array.from({ length: FREEZE_ALL_BATCH }, async (_, i) => ({ id: `p${i}`, address: await newAddress() }))),
      mint: await newAddress(),
      authority: await newAddress(),
      tokenProgram: TOKEN_PROGRAM_ADDRESS,
    };
    const feePayer = await newAddress();
    const resolved: OperationResolved<FreezeData> = {
      needsTransaction: true,
      feePayer,
      signers: [feePayer, data.authority],
      debits: [],
      webhooks: { preSubmit: false, postSubmit: false },
      data,
    };
    for (const freeze of [true, false]) {
      const instructions = [
        getSetComputeUnitLimitInstruction({ units: 1_400_000 }),
        getSetComputeUnitPriceInstruction({ microLamports: 2n ** 63n }),
        ...freezeHandler(freeze).instructions({} as OperationRequest<FreezePositionItemData>, resolved, 0),
      ];
      expect(instructions).toHaveLength(FREEZE_ALL_BATCH + 2);
      const message = pipe(
        createTransactionMessage({ version: 0 }),
        (m) => setTransactionMessageFeePayer(address(feePayer), m),
        (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: '11111111111111111111111111111111' as Blockhash, lastValidBlockHeight: 1n }, m),
        (m) => appendTransactionMessageInstructions(instructions, m),
      );
      const size = getTransactionSize(compileTransaction(message));
      // Room left for two more positions' worth (a durable nonce's advance instruction, for one).
      expect(size).toBeLessThanOrEqual(1232 - 2 * 39);
    }
  });
});
