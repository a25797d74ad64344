/** Durable nonce account request bodies of the reads (the write's derives from its declaration: src/api/routes/write-route.ts). */
import { durableNonceAccountDetailsItemData } from '../../domain/operations/durable-nonces/durable-nonce.inputs';
import { itemDataBody } from './common.codecs';

export const durableNonceAccountDetailsBody = itemDataBody('DurableNonceAccountDetailsRequest', durableNonceAccountDetailsItemData);
