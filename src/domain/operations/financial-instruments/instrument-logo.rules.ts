/**
 * An instrument's logo (spec 2.4 `offchainData.logo`), as Create and Update Financial Instrument
 * copy it: the content type sent must be the one served, and the record keeps what was sent plus
 * the copy's content type, size, file id and url.
 */
import { validationError } from '../../errors';

export interface LogoInput {
  copyFromUri: string;
  fileName?: string;
  contentType?: string;
  type?: 'LOGO';
}

export const LOGO_FIELD = 'itemData.offchainData.logo';

/** A content type sent must be the one the logo is served with (VALIDATION_ERROR naming it). */
export function checkLogoContentType(logo: LogoInput, served: string): void {
  if (logo.contentType && logo.contentType.toLowerCase() !== served) {
    throw validationError(`${LOGO_FIELD}.contentType`, `the logo is ${served}, not ${logo.contentType}`);
  }
}

/** The record's `offchainData.logo`: what was sent, and the stored copy it is served from. */
export function logoRecord(logo: LogoInput, copy: { contentType: string; size: number; storedFileId: string }): Record<string, unknown> {
  return { ...logo, type: logo.type ?? 'LOGO', ...copy, url: `/api/v1/files/${copy.storedFileId}` };
}
