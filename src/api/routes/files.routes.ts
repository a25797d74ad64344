/** Files the service keeps (instrument logos), served back to the tenant that stored them. */
import { findStoredFile } from '../../db/repositories/stored-files.repository';
import { notFound, validationError } from '../../domain/errors';
import type { ApiDeps } from '../context';
import { route, type RouteSpec } from '../route';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function fileRoutes(deps: ApiDeps): RouteSpec[] {
  return [
    route({
      operationId: 'fetchFile',
      method: 'get',
      path: '/api/v1/files/{fileId}',
      tag: 'Files',
      summary: 'A stored file (an instrument logo copied by Create or Update Financial Instrument), with its content type.',
      role: 'READ',
      usesCluster: false,
      pathParamSchemas: {
        fileId: {
          type: 'string',
          format: 'uuid',
          description: 'The file id, from a record (e.g. offchainData.logo.storedFileId of a financial instrument, whose logo.url is this path).',
        },
      },
      successStatus: 200,
      response: {
        mediaType: 'image/*',
        schema: { type: 'string', contentMediaType: 'image/*' },
        description: "The file's bytes, with its content type (image/png, image/jpeg, image/gif, image/webp or image/svg+xml).",
      },
      async handler(ctx) {
        const id = ctx.params.fileId;
        if (!UUID.test(id)) throw validationError('fileId', 'fileId must be a UUID');
        const em = deps.orm.em.fork();
        const file = await findStoredFile(em, id, ctx.state.caller!.organizationId);
        if (!file) throw notFound('fileId', 'no such file');
        ctx.type = file.contentType;
        ctx.set('Cache-Control', 'private, max-age=86400, immutable');
        ctx.set('X-Content-Type-Options', 'nosniff');
        // An SVG opened straight from the API must not run script in its origin.
        ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox");
        if (file.fileName) ctx.set('Content-Disposition', `inline; filename="${file.fileName.replace(/[^\w.-]/g, '_')}"`);
        return file.bytes;
      },
    }),
  ];
}
