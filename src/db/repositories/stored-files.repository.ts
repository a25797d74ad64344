/** Files the service keeps (table `stored_file`, instrument logos), each owned by one organization. */
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';

export interface StoredFile {
  contentType: string;
  fileName: string | null;
  bytes: Buffer;
}

/** Stores a file with its size and SHA-256 unless its id is taken (a retried copy writes once). Idempotent by id. */
export async function insertStoredFile(em: EntityManager, file: StoredFile & { id: string; organizationId: string }): Promise<void> {
  await em
    .getConnection()
    .execute(
      'insert into stored_file (id, organization_id, file_name, content_type, size, sha256, bytes, created_at) values (?, ?, ?, ?, ?, ?, ?, now()) on conflict (id) do nothing',
      [file.id, file.organizationId, file.fileName, file.contentType, file.bytes.length, createHash('sha256').update(file.bytes).digest('hex'), file.bytes],
    );
}

/** The id of the organization's stored file `id` when it holds these very bytes (by digest), content type and name. */
export async function findSameStoredFile(
  em: EntityManager,
  file: { id: string; organizationId: string; sha256: string; contentType: string; fileName: string | null },
): Promise<string | undefined> {
  const [same] = await em
    .getConnection()
    .execute<{ id: string }[]>(
      'select id from stored_file where id = ? and organization_id = ? and sha256 = ? and content_type = ? and file_name is not distinct from ?',
      [file.id, file.organizationId, file.sha256, file.contentType, file.fileName],
    );
  return same?.id;
}

/** The organization's file with this id; undefined when there is none (another organization's file included). */
export async function findStoredFile(em: EntityManager, id: string, organizationId: string): Promise<StoredFile | undefined> {
  const [file] = await em
    .getConnection()
    .execute<{ content_type: string; file_name: string | null; bytes: Buffer }[]>(
      'select content_type, file_name, bytes from stored_file where id = ? and organization_id = ?',
      [id, organizationId],
    );
  return file && { contentType: file.content_type, fileName: file.file_name, bytes: file.bytes };
}
