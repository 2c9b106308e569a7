/**
 * The REST API in front of the api function. Its resources and methods are the API's own route
 * table (lib/api/routes.ts, the source of docs/openapi.json), so API Gateway rejects unknown paths
 * and missing required parameters before the function runs, and the two cannot drift apart. Bodies
 * are the function's alone to judge: it answers every bad one as a problem (RFC 9457), where API
 * Gateway's own body validation would answer `{"message": "Invalid request body"}`. What API Gateway
 * still answers itself (a bad signature, throttling, a route it does not know) is a problem too.
 */
import { RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { gatewayProblemTemplate, PROBLEM_CONTENT_TYPE, PROBLEM_KINDS, type ProblemKind } from '../../lib/api/problem.js';
import { ROUTES, type ApiRoute } from '../../lib/api/routes.js';
import { API } from '../../lib/settings.js';
import type { ApiAuthorization } from '../config.js';

export interface ApiProps {
  handler: lambda.IFunction;
  authorization: ApiAuthorization;
  logRetentionDays: number;
}

/** API Gateway request parameters of a route: path parameters always required, query ones as declared. */
export function requestParameters(route: ApiRoute): Record<string, boolean> {
  const parameters: Record<string, boolean> = {};
  for (const [, name] of route.path.matchAll(/\{([^}]+)\}/g)) parameters[`method.request.path.${name}`] = true;
  for (const [name, schema] of Object.entries(route.query?.shape ?? {})) {
    parameters[`method.request.querystring.${name}`] = !schema.safeParse(undefined).success;
  }
  return parameters;
}

/**
 * The problem kind of each answer API Gateway gives itself. Each kind's status is the type's
 * documented default (https://docs.aws.amazon.com/apigateway/latest/developerguide/supported-gateway-response-types.html);
 * the custom authorizer types (this API has none) and the DEFAULT_4XX / DEFAULT_5XX fallbacks,
 * whose status varies, keep API Gateway's `{"message"}`: so does its 502 for a function that
 * fails or runs out of time, `{"message": "Internal server error"}` (docs/api.md).
 */
export const GATEWAY_PROBLEMS: ReadonlyArray<readonly [apigateway.ResponseType, ProblemKind]> = [
  [apigateway.ResponseType.MISSING_AUTHENTICATION_TOKEN, 'missing-authentication-token'],
  [apigateway.ResponseType.ACCESS_DENIED, 'not-authorized'],
  [apigateway.ResponseType.INVALID_SIGNATURE, 'not-authorized'],
  [apigateway.ResponseType.EXPIRED_TOKEN, 'not-authorized'],
  [apigateway.ResponseType.INVALID_API_KEY, 'not-authorized'],
  [apigateway.ResponseType.WAF_FILTERED, 'not-authorized'],
  [apigateway.ResponseType.THROTTLED, 'throttled'],
  [apigateway.ResponseType.QUOTA_EXCEEDED, 'throttled'],
  [apigateway.ResponseType.BAD_REQUEST_PARAMETERS, 'validation-failed'],
  [apigateway.ResponseType.BAD_REQUEST_BODY, 'validation-failed'],
  [apigateway.ResponseType.RESOURCE_NOT_FOUND, 'no-such-route'],
  [apigateway.ResponseType.REQUEST_TOO_LARGE, 'body-too-large'],
  [apigateway.ResponseType.UNSUPPORTED_MEDIA_TYPE, 'unsupported-media-type'],
  [apigateway.ResponseType.INTEGRATION_FAILURE, 'no-answer'],
  [apigateway.ResponseType.INTEGRATION_TIMEOUT, 'no-answer'],
  [apigateway.ResponseType.API_CONFIGURATION_ERROR, 'internal'],
];

/**
 * Why cdk-nag's findings on the API's authorization and WAF are acknowledged, per authorization
 * mode: each reason must be true of the API synthesized in that mode.
 */
const ACKNOWLEDGEMENT_REASONS: Record<ApiAuthorization, { waf: string; cognito: string; noAuthorizer?: string }> = {
  iam: {
    waf: 'Requests are SigV4-authorized and throttled per stage; a WAF web ACL is an account-level choice left to the deployer.',
    cognito: 'Callers are AWS principals authorized by IAM (SigV4), not Cognito users.',
  },
  none: {
    waf: 'apiAuthorization=none: the deployer chose an API anyone with its URL can call, throttled per stage only; a WAF web ACL to limit callers is theirs to associate.',
    cognito: 'apiAuthorization=none: the deployer chose an API without any authorizer, Cognito or other; it authorizes no caller.',
    noAuthorizer: 'apiAuthorization=none: the deployer chose, explicitly, an API without authorization that anyone with its URL can call.',
  },
};

export class Api extends Construct {
  readonly restApi: apigateway.RestApi;
  readonly accessLogs: logs.LogGroup;

  constructor(scope: Construct, id: string, props: ApiProps) {
    super(scope, id);
    const stack = Stack.of(this);
    // Who called the API outlives the stack (until the retention expires the entries).
    this.accessLogs = new logs.LogGroup(this, 'AccessLogs', { retention: props.logRetentionDays as logs.RetentionDays, removalPolicy: RemovalPolicy.RETAIN });
    const authorizationType = props.authorization === 'iam' ? apigateway.AuthorizationType.IAM : apigateway.AuthorizationType.NONE;
    this.restApi = new apigateway.RestApi(this, 'RestApi', {
      restApiName: `${stack.stackName}-api`,
      description: 'EBS volume provisioner API',
      endpointTypes: [apigateway.EndpointType.REGIONAL],
      // Access logs need the account's API Gateway CloudWatch role; this creates it. The role and
      // the account setting stay when the stack goes: other APIs of the account may log through them.
      cloudWatchRole: true,
      cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN,
      deployOptions: {
        stageName: 'v1',
        throttlingRateLimit: API.throttleRatePerSecond,
        throttlingBurstLimit: API.throttleBurst,
        metricsEnabled: true,
        accessLogDestination: new apigateway.LogGroupLogDestination(this.accessLogs),
        accessLogFormat: apigateway.AccessLogFormat.jsonWithStandardFields(),
      },
      defaultMethodOptions: { authorizationType },
    });
    // The stack outputs the stage's URL as `ApiUrl`; the output RestApi adds of its own (the same
    // URL under a generated name) would be a second one the README does not list.
    this.restApi.node.tryRemoveChild('Endpoint');
    // Methods name no body model, so the body check has nothing to hold a body to: one that is not
    // JSON, not an object or missing is the function's to refuse, as a problem naming what is wrong
    // (`malformed-json`, `validation-failed`), as it does locally.
    const validator = this.restApi.addRequestValidator('Validator', {
      requestValidatorName: 'parameters-and-body',
      validateRequestParameters: true,
      validateRequestBody: true,
    });
    // One permission for the whole API instead of one per method (the policy size limit).
    const integration = new apigateway.LambdaIntegration(props.handler, { proxy: true, scopePermissionToMethod: false });
    for (const route of ROUTES) {
      const resource = this.restApi.root.resourceForPath(route.path);
      resource.addMethod(route.method, integration, {
        operationName: route.operationId,
        requestValidator: validator,
        requestParameters: requestParameters(route),
      });
    }
    for (const [type, kind] of GATEWAY_PROBLEMS) {
      this.restApi.addGatewayResponse(type.responseType, {
        type,
        statusCode: String(PROBLEM_KINDS[kind].status),
        // As the function's own answers: a cache on the way keeps none (a 404 is cacheable by default).
        responseHeaders: { 'Content-Type': `'${PROBLEM_CONTENT_TYPE}'`, 'Cache-Control': "'no-store'" },
        templates: { 'application/json': gatewayProblemTemplate(kind) },
      });
    }

    const reasons = ACKNOWLEDGEMENT_REASONS[props.authorization];
    Validations.of(this.restApi).acknowledge({ id: 'AwsSolutions-APIG3', reason: reasons.waf });
    Validations.of(this.restApi).acknowledge({
      id: 'AwsSolutions-APIG6',
      reason: 'Access logs record every request; execution logs would go to a log group API Gateway creates without retention.',
    });
    const cloudWatchRole = this.restApi.node.tryFindChild('CloudWatchRole');
    if (cloudWatchRole) {
      Validations.of(cloudWatchRole).acknowledge({
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        reason: 'The AWS-managed policy API Gateway documents for its account-level logging role; it only writes logs.',
      });
    }
    for (const method of this.restApi.methods) {
      Validations.of(method).acknowledge({ id: 'AwsSolutions-COG4', reason: reasons.cognito });
      if (reasons.noAuthorizer) Validations.of(method).acknowledge({ id: 'AwsSolutions-APIG4', reason: reasons.noAuthorizer });
    }
  }
}
