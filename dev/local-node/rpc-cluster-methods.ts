/** JSON-RPC methods about the chain itself: slots, blockhashes, epochs, identity. */
import { MAX_BLOCKHASH_AGE } from './chain';
import { API_VERSION, withContext, type RpcHandler } from './rpc-context';
import { BLOCK_NOT_AVAILABLE, invalidParams, RpcError } from './rpc-errors';
import { contextSlot, readAddress, readArray, readCommitment, readConfig, readString, readUnsigned } from './rpc-params';

const MAX_PRIORITIZATION_FEE_ADDRESSES = 128;
const PRIORITIZATION_FEE_BLOCKS = 150;

const getSlot: RpcHandler = ([rawConfig], node) => contextSlot(node.chain, readConfig(rawConfig));

const getBlockHeight: RpcHandler = ([rawConfig], node) => {
  const config = readConfig(rawConfig);
  const commitment = readCommitment(config);
  contextSlot(node.chain, config, commitment);
  return node.chain.heightAt(commitment);
};

const getEpochInfo: RpcHandler = ([rawConfig], node) => {
  const config = readConfig(rawConfig);
  const commitment = readCommitment(config);
  const slot = contextSlot(node.chain, config, commitment);
  const slotsInEpoch = node.chain.slotsPerEpoch;
  return {
    absoluteSlot: slot,
    blockHeight: node.chain.heightAt(commitment),
    epoch: node.chain.epoch(slot),
    slotIndex: slot % slotsInEpoch,
    slotsInEpoch,
    transactionCount: node.store.count,
  };
};

const getEpochSchedule: RpcHandler = (_params, node) => ({
  slotsPerEpoch: node.chain.slotsPerEpoch,
  leaderScheduleSlotOffset: node.chain.slotsPerEpoch,
  warmup: false,
  firstNormalEpoch: 0,
  firstNormalSlot: 0,
});

const getLatestBlockhash: RpcHandler = ([rawConfig], node) => {
  const config = readConfig(rawConfig);
  const commitment = readCommitment(config);
  const slot = contextSlot(node.chain, config, commitment);
  const block = node.chain.latestBlock(commitment);
  return withContext(slot, { blockhash: block.blockhash, lastValidBlockHeight: block.height + MAX_BLOCKHASH_AGE });
};

const isBlockhashValid: RpcHandler = ([blockhash, rawConfig], node) => {
  const hash = readString(blockhash, 'blockhash');
  const config = readConfig(rawConfig);
  const commitment = readCommitment(config);
  const slot = contextSlot(node.chain, config, commitment);
  return withContext(slot, node.chain.isBlockhashUsable(hash, node.chain.heightAt(commitment)));
};

const getMinimumBalanceForRentExemption: RpcHandler = ([dataLength, rawConfig], node) => {
  contextSlot(node.chain, readConfig(rawConfig));
  const length = readUnsigned(dataLength ?? 0, 'dataLength');
  if (length > 10n * 1024n * 1024n) throw invalidParams('Invalid params: dataLength exceeds the maximum account size.');
  return node.svm.minimumBalanceForRentExemption(length);
};

/** Per recent block, oldest first: the lowest compute-unit price paid in it, raised to the highest lowest among the accounts' write locks. */
const getRecentPrioritizationFees: RpcHandler = ([addresses], node) => {
  const accounts = addresses === undefined || addresses === null ? [] : readArray(addresses, 'addresses', MAX_PRIORITIZATION_FEE_ADDRESSES).map(readAddress);
  return node.chain
    .recentBlocks(PRIORITIZATION_FEE_BLOCKS)
    .reverse()
    .map((block) => ({ slot: block.slot, prioritizationFee: node.prioritizationFees.feeAt(block.slot, accounts) }));
};

const getBlockTime: RpcHandler = ([slot], node) => {
  const wanted = Number(readUnsigned(slot, 'slot'));
  const time = node.chain.blockTimeOf(wanted);
  if (time === null) throw new RpcError(BLOCK_NOT_AVAILABLE, `Block not available for slot ${wanted}`);
  return time;
};

const getTransactionCount: RpcHandler = ([rawConfig], node) => {
  contextSlot(node.chain, readConfig(rawConfig));
  return node.store.count;
};

export const clusterMethods: Record<string, RpcHandler> = {
  getSlot,
  getBlockHeight,
  getEpochInfo,
  getEpochSchedule,
  getLatestBlockhash,
  isBlockhashValid,
  getMinimumBalanceForRentExemption,
  getRecentPrioritizationFees,
  getBlockTime,
  getTransactionCount,
  getVersion: () => ({ 'solana-core': API_VERSION, 'feature-set': 0 }),
  getHealth: () => 'ok',
  getGenesisHash: (_params, node) => node.genesisHash,
  getIdentity: (_params, node) => ({ identity: node.identity }),
  minimumLedgerSlot: (_params, node) => node.chain.firstAvailableSlot,
  getFirstAvailableBlock: (_params, node) => node.chain.firstAvailableSlot,
};
