/** Files the service keeps (instrument logos), served back to the tenant that stored them. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound, validationError } from '../../domain/errors';
import type { ApiDeps } from '../context';
import { route, type RouteSpec } from '../route';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function fileRoutes(deps: ApiDeps): RouteSpec[] {
  return [
    route({
      method: 'get',
      path: '/api/v1/files/{fileId}',
      tag: 'Files',
      summary: 'A stored file (an instrument logo copied by Create or Update Financial Instrument), with its content type.',
      role: 'READ',
      usesCluster: false,
      successStatus: 200,
      async handler(ctx) {
        const id = ctx.params.fileId;
        if (!UUID.test(id)) throw validationError('fileId', 'fileId must be a UUID');
        const em = deps.orm.em.fork() as unknown as EntityManager;
        const [file] = await em.getConnection().execute<{ content_type: string; file_name: string | null; bytes: Buffer }[]>(
          'select content_type, file_name, bytes from stored_file where id = ? and organization_id = ?',
          [id, ctx.state.caller!.organizationId],
        );
        if (!file) throw notFound('fileId', 'no such file');
        ctx.type = file.content_type;
        ctx.set('Cache-Control', 'private, max-age=86400, immutable');
        ctx.set('X-Content-Type-Options', 'nosniff');
        // An SVG opened straight from the API must not run script in its origin.
        ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox");
        if (file.file_name) ctx.set('Content-Disposition', `inline; filename="${file.file_name.replace(/[^\w.-]/g, '_')}"`);
        return file.bytes;
      },
    }),
  ];
}
