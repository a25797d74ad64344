/** The error body of every 4xx and 5xx (docs/behaviour/errors.md), and which statuses each kind of route answers. */
import * as t from 'io-ts';
import { errorCodes, errorStatus, type ErrorCode } from '../errors';
import { freeObjectWith, inline, listOf, strictObject, textEnum, textWith } from './building-blocks';

export const errorBody = strictObject(
  'ErrorBody',
  {
    errors: listOf(
      inline(
        strictObject(
          'ErrorEntry',
          {
            code: textEnum(errorCodes, 'A stable code; never renamed or reused.'),
            message: textWith('What went wrong; for 5xx a generic text (never a stack trace or a secret).'),
          },
          {
            field: textWith('The request field at fault, e.g. itemData.value.amount (or svmCluster, x-request-id, a path parameter, "(body)").'),
            limit: freeObjectWith('LIMIT_EXCEEDED: the debit limit that was hit.'),
          },
        ),
      ),
    ),
    requestId: textWith('The x-request-id of the request (sent or generated), also in the x-request-id header.'),
  },
  {},
  'Every 4xx and 5xx answer.',
);
export type ErrorBodyValue = t.TypeOf<typeof errorBody>;

/** The codes each status stands for, from the one table that maps codes to statuses. */
export function codesOf(status: number): ErrorCode[] {
  return errorCodes.filter((code) => errorStatus[code] === status);
}
