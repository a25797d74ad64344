/** Financial instruments: the Token Extensions Calculator (the rest of the lifecycle follows the same pattern). */
import { mintAccountSize, rentExemptMinimum } from '../../domain/token-extensions';
import { tokenExtensionsCalculatorBody } from '../codecs/financial-instrument.codecs';
import type { ApiDeps } from '../context';
import { lamportsBalance } from '../presenters/account.presenter';
import { route, type RouteSpec } from '../route';

export function financialInstrumentRoutes(_deps: ApiDeps): RouteSpec[] {
  return [
    route({
      method: 'post',
      path: '/api/v1/financial-instruments/token-extensions-calculator',
      tag: 'Financial instruments',
      summary:
        'Token Extensions Calculator: the mint account size for a list of Token-2022 extensions (plus Token Metadata when `metadata` is given; it brings its Metadata Pointer) and its rent-exempt minimum at the default rent. Use the size as `dataLength` to pre-create a mint with Create Account.',
      role: 'READ',
      usesCluster: false,
      body: tokenExtensionsCalculatorBody,
      successStatus: 200,
      response: {
        type: 'object',
        properties: { mintAccountSize: { type: 'integer' }, estimatedRent: { type: 'object', properties: { amount: { type: 'number' }, lamports: { type: 'integer' } } } },
      },
      async handler(_ctx, body) {
        const metadata = body.metadata && { name: body.metadata.name, symbol: body.metadata.symbol, uri: body.metadata.uri, additionalMetadata: body.metadata.simpleCustomMetadata };
        const size = mintAccountSize(body.extensions, metadata);
        return { mintAccountSize: size, estimatedRent: lamportsBalance(rentExemptMinimum(size)) };
      },
    }),
  ];
}
