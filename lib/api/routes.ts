/**
 * The API's routes, in one table: method, path, request and response schemas, and what each
 * does. The handler routes with this table and the OpenAPI document is generated from it.
 */
import type { z } from 'zod';
import {
  AttachmentListSchema,
  AttachmentParamsSchema,
  AttachmentSchema,
  CreateVolumeRequestSchema,
  DetachQuerySchema,
  InstanceParamsSchema,
  ListVolumesQuerySchema,
  PatchVolumeRequestSchema,
  PutAttachmentRequestSchema,
  VolumeDetailsSchema,
  VolumeListSchema,
  VolumeParamsSchema,
} from './schemas.js';
import { entityTag, type Precondition, type Versioned } from './preconditions.js';
import type { VolumeService } from './service.js';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export interface RouteResult {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface RouteContext {
  service: VolumeService;
  /** The OpenAPI document of this API (built lazily; it is served by the API itself). */
  openApiDocument: () => unknown;
}

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  /** The response names one record and carries its `ETag` (`versioned`). */
  etag?: boolean;
  /** The response carries the record's path in `Location` (`volumeLocation`). */
  location?: boolean;
}

interface RouteDefinition<P extends z.ZodObject | undefined, Q extends z.ZodObject | undefined, B extends z.ZodType | undefined> {
  method: HttpMethod;
  /** API Gateway / OpenAPI style template, e.g. `/volumes/{volumeId}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  params?: P;
  query?: Q;
  body?: B;
  /** Whether a request without a body is rejected (default true when `body` is set); an absent optional body parses as `{}`. */
  bodyRequired?: boolean;
  /** Success responses by status. */
  responses: Record<number, ResponseSpec>;
  /** Problem responses this route can give beyond 400/413/415/500, with what they mean. */
  problems?: Record<number, string>;
  /** The route takes `If-Match` (it then gives 412 as well); `ifMatch` is undefined when the header is absent. */
  ifMatch?: boolean;
  /**
   * With `ifMatch`: evaluates the header alone as `run` does before it acts, throwing its 412, for
   * a request whose body is refused (RFC 9110 §13.2.1 evaluates preconditions before the content).
   * What `run` refuses before evaluating it (no such record, one that is not valid) is left to the
   * body's refusal.
   */
  precondition?(context: RouteContext, input: { params: Out<P>; ifMatch: Precondition }): Promise<void>;
  /** `path`: the request's path, as the client sent it (for references relative to it). */
  run(context: RouteContext, input: { params: Out<P>; query: Out<Q>; body: Out<B>; ifMatch: Precondition | undefined; path: string }): Promise<RouteResult>;
}

/** A route with its input types erased, as the handler and the document generator see it. */
export interface ApiRoute {
  method: HttpMethod;
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  bodyRequired?: boolean;
  responses: Record<number, ResponseSpec>;
  problems?: Record<number, string>;
  ifMatch?: boolean;
  precondition?(context: RouteContext, input: { params: unknown; ifMatch: Precondition }): Promise<void>;
  run(context: RouteContext, input: { params: unknown; query: unknown; body: unknown; ifMatch: Precondition | undefined; path: string }): Promise<RouteResult>;
}

function defineRoute<
  P extends z.ZodObject | undefined = undefined,
  Q extends z.ZodObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
>(definition: RouteDefinition<P, Q, B>): ApiRoute {
  return definition as unknown as ApiRoute;
}

const json = (status: number, body: unknown, headers?: Record<string, string>): RouteResult => ({
  status,
  body,
  ...(headers ? { headers } : {}),
});

/** A response naming one volume or attachment, with its entity tag (`entityTag`). */
const versioned = (status: number, record: Versioned, headers: Record<string, string> = {}): RouteResult =>
  json(status, record, { ...headers, ETag: entityTag(record) });

/**
 * The volume's URL relative to the request's (`…/volumes`, or `…/volumes/`), so it resolves under
 * any stage or base path the API is served under.
 */
const volumeLocation = (volumeId: string, requestPath: string) => ({
  Location: `${requestPath.endsWith('/') ? '' : 'volumes/'}${encodeURIComponent(volumeId)}`,
});

/** What 409 `invalid-record` means, on every route that names a record. */
const INVALID_RECORD =
  '`invalid-record`: the record is in the table but not valid (written there outside the API); `errors` gives the reasons (`record.<field>`), and nothing was done.';

/** What 409 `conflict` means when other writes to the record kept landing between the request's read and its write. */
const CHANGED_CONCURRENTLY = 'The record changed concurrently each time the request wrote it (it tries three times); nothing was changed: read it again and repeat the request.';

/** What 412 means on every route that takes `If-Match`. */
const PRECONDITION_FAILED =
  '`If-Match` does not name the record as it is (changed by another client, or deleted and created again): nothing was changed. The `ETag` ' +
  'header and `detail` give the current one; read the record again and reapply the change. A header that can never match (not a list of quoted ' +
  'entity tags or `*`, or weak `W/` tags only) is 412 too, and its `detail` says what is wrong with it: fix the header. `If-Match` is evaluated ' +
  'before the body (RFC 9110 §13.2.1): a request whose body is refused (400, 415) is 412 when it does not hold.';

export const ROUTES: readonly ApiRoute[] = [
  defineRoute({
    method: 'GET',
    path: '/openapi.json',
    operationId: 'getOpenApiDocument',
    summary: 'This API as an OpenAPI 3 document',
    responses: { 200: { description: 'The OpenAPI document.' } },
    run: async ({ openApiDocument }) => json(200, openApiDocument()),
  }),
  defineRoute({
    method: 'POST',
    path: '/volumes',
    operationId: 'createVolume',
    summary: 'Ask for a volume',
    description:
      'Creates the volume record; the system then creates the EBS volume. With `attachTo`, also asks for the attachment, ' +
      'and without an availability zone the volume goes in the instance\'s AZ. Repeating a request with the same ' +
      '`volumeId` and spec answers 200 with the existing volume, also when the attachment `attachTo` asks for is new (IOPS and throughput compared as EBS provisions them: ' +
      'gp3\'s baseline spelt out or left out is the same); the same id with another spec (or placed by another ' +
      '`attachTo` instance) is 409, naming each difference.',
    body: CreateVolumeRequestSchema,
    responses: {
      201: { description: 'Created.', schema: VolumeDetailsSchema, etag: true, location: true },
      200: { description: 'Already existed with this spec (repeated request; an attachment asked for may be new).', schema: VolumeDetailsSchema, etag: true, location: true },
    },
    problems: {
      404: 'The volume vanished while the attachment was being added.',
      409: `The id is taken by a volume that differs from the request (\`errors\` names each difference) or is being deleted; or the attachment \`attachTo\` asks for is refused as \`PUT /volumes/{volumeId}/attachments/{instanceId}\` refuses it (an attachment to another instance, not multi-attach, or to 16 others; one being detached from this instance, with another device, or left by a removed volume record under the id; another volume's attachment on the instance holding \`attachTo.device\`), with \`attachTo.\` in the paths of \`errors\`; a new volume is then not written (the attachment is judged first; one refused by a request landing after that judgement is refused once the volume is written, and without a \`volumeId\` the \`detail\` names the id generated for it); or the id was taken by a volume removed again before it could be read, or the id generated for a request without a \`volumeId\` is taken by another volume (nothing is written: repeat the request). ${CHANGED_CONCURRENTLY} ${INVALID_RECORD}`,
      500:
        'Unexpected failure; safe to retry with a `volumeId`. Without one, a failure once the volume was asked for names the id generated for it in `detail`: ' +
        'the volume may exist, so read it rather than repeating the request, which would ask for another volume.',
    },
    run: async ({ service }, { body, path }) => {
      const { created, value } = await service.createVolume(body);
      return versioned(created ? 201 : 200, value, volumeLocation(value.volumeId, path));
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/volumes',
    operationId: 'listVolumes',
    summary: 'List volumes, a page at a time',
    description:
      'Pages are at most `limit` long. With a filter, a page may be shorter while a `cursor` remains: keep following it.',
    query: ListVolumesQuerySchema,
    responses: { 200: { description: 'A page of volumes.', schema: VolumeListSchema } },
    run: async ({ service }, { query }) => json(200, await service.listVolumes(query)),
  }),
  defineRoute({
    method: 'GET',
    path: '/volumes/{volumeId}',
    operationId: 'getVolume',
    summary: 'A volume with its status and attachments',
    params: VolumeParamsSchema,
    responses: { 200: { description: 'The volume.', schema: VolumeDetailsSchema, etag: true } },
    problems: { 404: 'No such volume.', 409: INVALID_RECORD },
    run: async ({ service }, { params }) => versioned(200, await service.getVolume(params.volumeId)),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/volumes/{volumeId}',
    operationId: 'modifyVolume',
    summary: 'Grow a volume or change its type, IOPS, throughput or tags',
    description:
      'Volumes only grow. The change bumps `generation`; the system applies tags with CreateTags/DeleteTags first, ' +
      'then size, type and performance with ModifyVolume. A change of `tags` alone is judged on its tags, also while ' +
      'the spec asks for what EBS cannot make of the volume (e.g. a size below one it was grown to outside the system); ' +
      'a size, type, IOPS or throughput change needs a whole spec EBS can make, and an issue it leaves as it was is named as such.',
    params: VolumeParamsSchema,
    body: PatchVolumeRequestSchema,
    responses: { 200: { description: 'The volume with its new spec.', schema: VolumeDetailsSchema, etag: true } },
    problems: {
      404: 'No such volume.',
      409: `The volume is being deleted, changed concurrently, or has attachments to more than one instance while the change turns \`multiAttach\` off. ${INVALID_RECORD}`,
      412: PRECONDITION_FAILED,
    },
    ifMatch: true,
    precondition: ({ service }, { params, ifMatch }) => service.checkVolumePrecondition(params.volumeId, ifMatch, 'change'),
    run: async ({ service }, { params, body, ifMatch }) => versioned(200, await service.patchVolume(params.volumeId, body, ifMatch)),
  }),
  defineRoute({
    method: 'POST',
    path: '/volumes/{volumeId}/retry',
    operationId: 'retryVolume',
    summary: 'Try again after a terminal error',
    description:
      'A volume in `error` stays there until asked: this bumps `generation` (the spec is unchanged) and puts it back to ' +
      '`pending` with its attempts reset, as the answer shows; the system starts over from where the volume stands. ' +
      'A spec change with PATCH retries as well.',
    params: VolumeParamsSchema,
    responses: { 202: { description: 'The retry is under way.', schema: VolumeDetailsSchema, etag: true } },
    problems: { 404: 'No such volume.', 409: `The volume is not in error, or is being deleted. ${CHANGED_CONCURRENTLY} ${INVALID_RECORD}`, 412: PRECONDITION_FAILED },
    ifMatch: true,
    precondition: ({ service }, { params, ifMatch }) => service.checkVolumePrecondition(params.volumeId, ifMatch, 'change'),
    run: async ({ service }, { params, ifMatch }) => versioned(202, await service.retryVolume(params.volumeId, ifMatch)),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/volumes/{volumeId}',
    operationId: 'deleteVolume',
    summary: 'Delete a volume (detaching it everywhere first)',
    description: 'Marks the volume dying; the system detaches it, deletes it, then removes the record. Repeatable.',
    params: VolumeParamsSchema,
    responses: { 202: { description: 'Deletion is under way (or finished just now: the volume as marked, with no attachments).', schema: VolumeDetailsSchema, etag: true } },
    problems: {
      404: 'No such volume (or it is already gone).',
      409: `${CHANGED_CONCURRENTLY} ${INVALID_RECORD} A volume whose faults are all ones a delete does not use (a spec outside the EBS limits or with a tag key of 128 characters, the limit before; a spec with no placement; a \`retriedGeneration\` past its \`generation\`) is marked dying all the same: the system deletes it whatever its spec.`,
      412: PRECONDITION_FAILED,
    },
    ifMatch: true,
    precondition: ({ service }, { params, ifMatch }) => service.checkVolumePrecondition(params.volumeId, ifMatch, 'delete'),
    run: async ({ service }, { params, ifMatch }) => versioned(202, await service.deleteVolume(params.volumeId, ifMatch)),
  }),
  defineRoute({
    method: 'PUT',
    path: '/volumes/{volumeId}/attachments/{instanceId}',
    operationId: 'attachVolume',
    summary: 'Attach a volume to an instance',
    description:
      'The body is optional; give `device` to choose the device name. Repeatable: an existing attachment answers 200 ' +
      'as it is, also when `device` is the one it was requested with or the system allocated.',
    params: AttachmentParamsSchema,
    body: PutAttachmentRequestSchema,
    bodyRequired: false,
    responses: {
      201: { description: 'Attachment requested.', schema: AttachmentSchema, etag: true },
      200: { description: 'Already requested.', schema: AttachmentSchema, etag: true },
    },
    problems: {
      404: 'No such volume.',
      409:
        'The volume is being deleted, has an attachment to another instance (not multi-attach) or, multi-attach, attachments to 16 other instances, is being detached from this instance, the attachment has another device (requested or allocated) than `device`, the attachment belongs to a removed volume record under the id (it may still hold that record\'s EC2 volume and never attaches the current one\'s: delete it, then attach again), or another volume\'s attachment on the instance holds `device` (or another name of its slot: `/dev/sdf` and `/dev/xvdf` are one). ' +
        `${CHANGED_CONCURRENTLY} ${INVALID_RECORD} The volume's, the attachment's, or (a volume that is not multi-attach) another attachment's of the volume, which may be attached.`,
      412: `${PRECONDITION_FAILED} With \`If-Match\` the attachment must exist: such a request never creates one.`,
    },
    ifMatch: true,
    precondition: ({ service }, { params, ifMatch }) => service.checkAttachmentPrecondition(params.volumeId, params.instanceId, ifMatch, 'attach'),
    run: async ({ service }, { params, body, ifMatch }) => {
      const { created, value } = await service.putAttachment(params.volumeId, params.instanceId, body, { ifMatch });
      return versioned(created ? 201 : 200, value);
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/volumes/{volumeId}/attachments/{instanceId}',
    operationId: 'detachVolume',
    summary: 'Detach a volume from an instance',
    description:
      'Marks the attachment dying; the system detaches, then removes the record. Repeatable. An attachment whose volume record ' +
      'was removed from the table (code `VolumeRecordRemoved`) has its volume found by its ownership tags: every volume of this ' +
      'deployment tagged with that volume id and attached to the instance is detached, then the record is removed (none attached: ' +
      'removed at once), also once a volume record with that id has been written again. With `force=true` the detach is forced ' +
      '(`forceDetach`; it may lose data), in the same write, or on an attachment already dying; a detach under way then gets one ' +
      'more DetachVolume, forced. The detach of volumes found by their tags is not forced.',
    params: AttachmentParamsSchema,
    query: DetachQuerySchema,
    responses: { 202: { description: 'Detaching is under way.', schema: AttachmentSchema, etag: true } },
    problems: {
      404: 'No such attachment.',
      409: `${CHANGED_CONCURRENTLY} ${INVALID_RECORD} An attachment whose only fault is a requested device EC2 refuses (asked for before device names were held to EC2's) is marked dying all the same: the system detaches it whatever its device.`,
      412: PRECONDITION_FAILED,
    },
    ifMatch: true,
    precondition: ({ service }, { params, ifMatch }) => service.checkAttachmentPrecondition(params.volumeId, params.instanceId, ifMatch, 'delete'),
    run: async ({ service }, { params, query, ifMatch }) =>
      versioned(202, await service.deleteAttachment(params.volumeId, params.instanceId, ifMatch, query.force)),
  }),
  defineRoute({
    method: 'POST',
    path: '/volumes/{volumeId}/attachments/{instanceId}/retry',
    operationId: 'retryAttachment',
    summary: 'Try attaching again after a terminal error',
    description:
      'An attachment in `error` (e.g. `InvalidVolume.ZoneMismatch`, or an instance that was terminated) stays there ' +
      'until asked: this bumps its `generation` and puts it back to `pending` with its attempts reset, as the answer ' +
      'shows; the system starts over from there.',
    params: AttachmentParamsSchema,
    responses: { 202: { description: 'The retry is under way.', schema: AttachmentSchema, etag: true } },
    problems: {
      404: 'No such attachment.',
      409: `The attachment is not in error, is being detached, its volume record does not exist (removed from the table) or is being deleted (its delete detaches and removes the attachment), or it may still hold the EC2 volume of a removed volume record (delete it, then attach again). ${CHANGED_CONCURRENTLY} ${INVALID_RECORD} The attachment's or its volume's.`,
      412: PRECONDITION_FAILED,
    },
    ifMatch: true,
    precondition: ({ service }, { params, ifMatch }) => service.checkAttachmentPrecondition(params.volumeId, params.instanceId, ifMatch, 'change'),
    run: async ({ service }, { params, ifMatch }) => versioned(202, await service.retryAttachment(params.volumeId, params.instanceId, ifMatch)),
  }),
  defineRoute({
    method: 'GET',
    path: '/instances/{instanceId}/attachments',
    operationId: 'listInstanceAttachments',
    summary: "An instance's attachments",
    params: InstanceParamsSchema,
    responses: { 200: { description: 'Every attachment of the instance.', schema: AttachmentListSchema } },
    run: async ({ service }, { params }) => json(200, { items: await service.listInstanceAttachments(params.instanceId) }),
  }),
];

/** Names of the `{placeholders}` in a path template, in order. */
export function pathParameterNames(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
}

/** A regular expression matching concrete paths of a template (one segment per placeholder). */
export function pathPattern(path: string): RegExp {
  const escaped = path
    .split(/\{[^}]+\}/)
    .map((literal) => literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^/]+');
  return new RegExp(`^${escaped}/?$`);
}
