/**
 * SigV4 signing of CLI requests to a deployed API (API Gateway with IAM authorization), with the
 * AWS SDK's own signer, and the region read from the execute-api URL when not given.
 */
import { Sha256 } from '@aws-crypto/sha256-js';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';

/** AWS credentials, as the SDK's credential providers return them. */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  expiration?: Date;
}
export type AwsCredentialsProvider = () => Promise<AwsCredentials>;

/** The service name API Gateway checks signatures against. */
export const EXECUTE_API_SERVICE = 'execute-api';

/**
 * The DNS suffixes of the AWS partitions, as the SDK's partition data gives them (`dnsSuffix`): aws and
 * aws-us-gov, aws-cn, aws-eusc (European Sovereign Cloud), aws-iso, aws-iso-b, aws-iso-e, aws-iso-f.
 */
export const PARTITION_DNS_SUFFIXES: readonly string[] = [
  'amazonaws.com',
  'amazonaws.com.cn',
  'amazonaws.eu',
  'c2s.ic.gov',
  'sc2s.sgov.gov',
  'cloud.adc-e.uk',
  'csp.hci.ic.gov',
];
const SUFFIX = `(?:${PARTITION_DNS_SUFFIXES.map((suffix) => suffix.replaceAll('.', '\\.')).join('|')})`;
/** A Region code: words joined by hyphens, ending in a number (us-east-1, us-gov-west-1, eusc-de-east-1, us-isob-east-1). */
const REGION = '[a-z]+(?:-[a-z]+)+-\\d+';
const EXECUTE_API_HOST = new RegExp(`^[a-z0-9]+\\.execute-api\\.(${REGION})\\.${SUFFIX}$`);
const REGIONAL_HOST = new RegExp(`\\.(${REGION})\\.${SUFFIX}$`);

/**
 * True for `https://<api-id>.execute-api.<region>.<partition's DNS suffix>/...` (`amazonaws.com` and
 * the others above): such requests must be signed.
 */
export function isExecuteApiUrl(url: URL): boolean {
  return EXECUTE_API_HOST.test(url.hostname);
}

/** The AWS region named in an AWS endpoint's host name, if any. */
export function regionFromUrl(url: URL): string | undefined {
  return EXECUTE_API_HOST.exec(url.hostname)?.[1] ?? REGIONAL_HOST.exec(url.hostname)?.[1];
}

export interface SignableRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: string;
}

/** Returns the headers to send: the request's own plus `host`, `x-amz-date`, `authorization` (and a session token). */
export type RequestSigner = (request: SignableRequest, signingDate?: Date) => Promise<Record<string, string>>;

export interface SignerOptions {
  region: string;
  credentials: AwsCredentials | AwsCredentialsProvider;
  service?: string;
}

export function createRequestSigner(options: SignerOptions): RequestSigner {
  const signer = new SignatureV4({
    service: options.service ?? EXECUTE_API_SERVICE,
    region: options.region,
    credentials: options.credentials,
    sha256: Sha256,
    // API Gateway does not need the payload hash header; leaving it out keeps requests minimal.
    applyChecksum: false,
  });
  return async ({ method, url, headers, body }, signingDate) => {
    const query: Record<string, string | string[]> = {};
    for (const [name, value] of url.searchParams) {
      const existing = query[name];
      query[name] = existing === undefined ? value : [...(Array.isArray(existing) ? existing : [existing]), value];
    }
    const request = new HttpRequest({
      method: method.toUpperCase(),
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: url.pathname,
      query,
      headers: { ...headers, host: url.host },
      ...(body !== undefined ? { body } : {}),
    });
    const signed = await signer.sign(request, signingDate ? { signingDate } : {});
    return { ...signed.headers };
  };
}
