/**
 * JSON-RPC methods about validators, leaders, stake and inflation, answered as a cluster of one
 * validator would: the node's identity leads every slot and produces every block, one vote
 * account with a fixed stake votes on each, and no inflation rewards are paid (the node mints none).
 */
import { createHash } from 'node:crypto';
import { encodeBase58 } from './base58';
import { API_VERSION, nodeEndpoints, withContext, type RpcHandler } from './rpc-context';
import { invalidParams, RpcError } from './rpc-errors';
import { contextSlot, readAddress, readArray, readConfig, readString, readUnsigned } from './rpc-params';
import type { NodeRuntime } from './runtime';

/** The lone vote account's activated stake, in lamports (1,000 SOL; nothing else depends on it). */
export const VALIDATOR_STAKE = 1_000_000_000_000n;
const MAX_SLOT_LEADERS = 5000;
const MAX_PERFORMANCE_SAMPLES = 720;
/** A sample covers 60 s like Agave's, i.e. 150 blocks at a cluster's 400 ms. */
const SAMPLE_SLOTS = 150;
const SAMPLE_PERIOD_SECS = 60;
/** Agave's MAX_LOCKOUT_HISTORY + 1 entries of getBlockCommitment. */
const COMMITMENT_DEPTHS = 32;
/** 1 SOL: LiteSVM runs with every feature active, raise_minimum_delegation_to_1_sol included. */
const STAKE_MINIMUM_DELEGATION = 1_000_000_000n;
const NO_SNAPSHOT = -32008;

/** A stable vote-account address for the node, derived from its identity (survives restarts with it). */
export function voteAccountOf(node: NodeRuntime): string {
  return encodeBase58(createHash('sha256').update(`local-node vote account ${node.identity}`).digest());
}

const hostPort = (url: string | undefined) => (url ? url.replace(/^[a-z]+:\/\//, '') : null);

const getSlotLeader: RpcHandler = ([rawConfig], node) => {
  contextSlot(node.chain, readConfig(rawConfig));
  return node.identity;
};

const getSlotLeaders: RpcHandler = ([rawStart, rawLimit], node) => {
  readUnsigned(rawStart, 'start_slot');
  const limit = Number(readUnsigned(rawLimit, 'limit'));
  if (limit > MAX_SLOT_LEADERS) throw invalidParams(`Invalid limit; max ${MAX_SLOT_LEADERS}`);
  return new Array<string>(limit).fill(node.identity);
};

/** `[slot?, config?]` or the legacy `[config]`; the schedule of the slot's epoch as slot indexes by identity. */
const getLeaderSchedule: RpcHandler = ([first, second], node) => {
  const configFirst = typeof first === 'object' && first !== null;
  const config = readConfig(configFirst ? first : second);
  const commitmentSlot = contextSlot(node.chain, config);
  const slot = configFirst || first === undefined || first === null ? commitmentSlot : Number(readUnsigned(first, 'slot'));
  // A cluster knows the schedule of the current epoch and the next one.
  if (node.chain.epoch(slot) > node.chain.epoch(commitmentSlot) + 1) return null;
  const identity = config.identity === undefined || config.identity === null ? null : readString(config.identity, 'identity');
  if (identity !== null && identity !== node.identity) return {};
  return { [node.identity]: Array.from({ length: node.chain.slotsPerEpoch }, (_, i) => i) };
};

const getClusterNodes: RpcHandler = (_params, node) => {
  const endpoints = nodeEndpoints(node);
  return [
    {
      pubkey: node.identity,
      gossip: null,
      tvu: null,
      tpu: null,
      tpuQuic: null,
      tpuForwards: null,
      tpuForwardsQuic: null,
      tpuVote: null,
      serveRepair: null,
      rpc: hostPort(endpoints?.rpc),
      pubsub: hostPort(endpoints?.pubsub),
      version: API_VERSION,
      featureSet: 0,
      shredVersion: 0,
    },
  ];
};

const getVoteAccounts: RpcHandler = ([rawConfig], node) => {
  const config = readConfig(rawConfig);
  contextSlot(node.chain, config);
  const votePubkey = voteAccountOf(node);
  if (config.votePubkey !== undefined && config.votePubkey !== null && readString(config.votePubkey, 'votePubkey') !== votePubkey) {
    return { current: [], delinquent: [] };
  }
  const root = node.chain.slotAt('finalized');
  const epoch = node.chain.epoch(root);
  const firstInEpoch = epoch * node.chain.slotsPerEpoch;
  return {
    current: [
      {
        votePubkey,
        nodePubkey: node.identity,
        activatedStake: VALIDATOR_STAKE,
        epochVoteAccount: true,
        commission: 0,
        lastVote: node.chain.slotAt('confirmed'),
        // One credit per rooted slot: earned this epoch, carried from the previous ones.
        epochCredits: [[epoch, root, firstInEpoch]],
        rootSlot: root,
      },
    ],
    delinquent: [],
  };
};

const getBlockProduction: RpcHandler = ([rawConfig], node) => {
  const config = readConfig(rawConfig);
  const slot = contextSlot(node.chain, config);
  const range = readConfig(config.range);
  const firstSlot = range.firstSlot === undefined ? node.chain.epoch(slot) * node.chain.slotsPerEpoch : Number(readUnsigned(range.firstSlot, 'firstSlot'));
  const lastSlot = range.lastSlot === undefined || range.lastSlot === null ? slot : Number(readUnsigned(range.lastSlot, 'lastSlot'));
  if (lastSlot > slot) throw invalidParams(`lastSlot, ${lastSlot}, cannot be greater than ${slot}`);
  if (firstSlot > lastSlot) throw invalidParams(`lastSlot, ${lastSlot}, cannot be less than firstSlot, ${firstSlot}`);
  const identity = config.identity === undefined || config.identity === null ? null : readString(config.identity, 'identity');
  const produced = node.chain.blockSlots(firstSlot, lastSlot).length;
  const byIdentity = identity !== null && identity !== node.identity ? {} : { [node.identity]: [lastSlot - firstSlot + 1, produced] };
  return withContext(slot, { byIdentity, range: { firstSlot, lastSlot } });
};

/** The stake that voted on the slot at each lockout depth; null for slots rooted or not yet seen. */
const getBlockCommitment: RpcHandler = ([rawSlot], node) => {
  const slot = Number(readUnsigned(rawSlot, 'slot'));
  const root = node.chain.slotAt('finalized');
  if (slot <= root || slot > node.chain.slotAt('processed')) return { commitment: null, totalStake: VALIDATOR_STAKE };
  const commitment = new Array<bigint>(COMMITMENT_DEPTHS).fill(0n);
  commitment[Math.min(COMMITMENT_DEPTHS - 1, Math.max(0, node.chain.slotAt('confirmed') - slot))] = VALIDATOR_STAKE;
  return { commitment, totalStake: VALIDATOR_STAKE };
};

/** Newest first, one per 150 blocks: how many transactions landed in them. */
const getRecentPerformanceSamples: RpcHandler = ([rawLimit], node) => {
  const limit = rawLimit === undefined || rawLimit === null ? MAX_PERFORMANCE_SAMPLES : Number(readUnsigned(rawLimit, 'limit'));
  if (limit > MAX_PERFORMANCE_SAMPLES) throw invalidParams(`Invalid limit; max ${MAX_PERFORMANCE_SAMPLES}`);
  const samples = [];
  const first = node.chain.firstAvailableSlot;
  for (let end = node.chain.slotAt('confirmed'); end >= first && samples.length < limit; end -= SAMPLE_SLOTS) {
    const start = Math.max(first, end - SAMPLE_SLOTS + 1);
    let transactions = 0;
    for (let slot = start; slot <= end; slot++) transactions += node.store.index.inSlot(slot).length;
    samples.push({
      slot: end,
      numTransactions: transactions,
      numNonVoteTransactions: transactions,
      numSlots: end - start + 1,
      samplePeriodSecs: SAMPLE_PERIOD_SECS,
    });
  }
  return samples;
};

const NO_INFLATION = { initial: 0, terminal: 0, taper: 0, foundation: 0, foundationTerm: 0 };

const getInflationGovernor: RpcHandler = ([rawConfig], node) => {
  contextSlot(node.chain, readConfig(rawConfig));
  return NO_INFLATION;
};

const getInflationRate: RpcHandler = (_params, node) => ({ total: 0, validator: 0, foundation: 0, epoch: node.chain.epoch() });

/** No epoch has rewards: one null per address, as a cluster answers for an epoch without them. */
const getInflationReward: RpcHandler = ([addresses, rawConfig], node) => {
  const list = readArray(addresses, 'addresses', 1000).map(readAddress);
  const config = readConfig(rawConfig);
  contextSlot(node.chain, config);
  if (config.epoch !== undefined && config.epoch !== null) readUnsigned(config.epoch, 'epoch');
  return list.map(() => null);
};

const getStakeMinimumDelegation: RpcHandler = ([rawConfig], node) => withContext(contextSlot(node.chain, readConfig(rawConfig)), STAKE_MINIMUM_DELEGATION);

export const validatorMethods: Record<string, RpcHandler> = {
  getSlotLeader,
  getSlotLeaders,
  getLeaderSchedule,
  getClusterNodes,
  getVoteAccounts,
  getBlockProduction,
  getBlockCommitment,
  getRecentPerformanceSamples,
  getInflationGovernor,
  getInflationRate,
  getInflationReward,
  getStakeMinimumDelegation,
  // The node keeps its state in its data directory, not in snapshots.
  getHighestSnapshotSlot: () => {
    throw new RpcError(NO_SNAPSHOT, 'No snapshot');
  },
  getMaxRetransmitSlot: (_params, node) => node.chain.slotAt('processed'),
  getMaxShredInsertSlot: (_params, node) => node.chain.slotAt('processed'),
};
