/**
 * An instrument's logo (spec 2.4 `offchainData.logo`): copied from `copyFromUri` into the service
 * (table `stored_file`) and served back to the tenant at `GET /api/v1/files/{id}`. Create Financial
 * Instrument and Update Financial Instrument both copy it here; the record's `offchainData.logo`
 * keeps what was sent plus the copy's content type, size, file id and url.
 */
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { findSameStoredFile, insertStoredFile } from '../../../db/repositories/stored-files.repository';
import { checkLogoContentType, LOGO_FIELD, logoRecord, type LogoInput } from '../../../domain/operations/financial-instruments/instrument-logo.rules';
import { fetchLogo } from '../../../storage/logo-fetcher';
import type { ActivityDeps } from '../../deps';

/**
 * Fetches the logo and stores it under `fileId`, idempotently (a retried step finds its row). When
 * `current` (the logo the record holds) names a stored file with the same bytes, content type and
 * file name, that file and its url are kept instead of a copy. Returns the record's logo object.
 */
export async function copyLogo(
  em: EntityManager,
  deps: ActivityDeps,
  organizationId: string,
  logo: LogoInput,
  fileId: string,
  current?: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const fetched = await fetchLogo(logo.copyFromUri, deps.logoPolicy, `${LOGO_FIELD}.copyFromUri`, deps.fetch);
  checkLogoContentType(logo, fetched.contentType);
  const currentId = typeof current?.storedFileId === 'string' ? current.storedFileId : undefined;
  const sha256 = createHash('sha256').update(fetched.bytes).digest('hex');
  const same = currentId
    ? await findSameStoredFile(em, { id: currentId, organizationId, sha256, contentType: fetched.contentType, fileName: logo.fileName ?? null })
    : undefined;
  const id = same ?? fileId;
  if (!same) await insertStoredFile(em, { id, organizationId, fileName: logo.fileName ?? null, contentType: fetched.contentType, bytes: fetched.bytes });
  return logoRecord(logo, { contentType: fetched.contentType, size: fetched.bytes.length, storedFileId: id });
}
