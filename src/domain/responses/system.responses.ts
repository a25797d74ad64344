/** Health, readiness and the OpenAPI document. */
import { constant, freeObjectWith, strictObject, textEnum } from './building-blocks';

export const healthResponse = strictObject('HealthResponse', { status: constant('ok') }, {}, 'The process answers.');

export const readinessResponse = strictObject(
  'ReadinessResponse',
  { status: textEnum(['ready', 'not ready']) },
  {},
  '"ready" (200) when PostgreSQL and Temporal answer; "not ready" (503) otherwise, and from the moment the process starts stopping (SIGTERM) so load balancers take it out while requests in flight finish.',
);

export const openApiDocumentResponse = freeObjectWith('An OpenAPI 3.1 document (this one).');
