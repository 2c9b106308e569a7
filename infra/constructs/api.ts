import { Validations } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { ROUTES } from '../../lib/api/routes.js';
import { API } from '../../lib/settings.js';

export type ApiAuthorization = 'iam' | 'none';

/** Routes served by the api function, from the same route table the function routes with (docs/openapi.json is generated from it too). */
export const API_ROUTES: Readonly<Record<string, readonly string[]>> = ROUTES.reduce<Record<string, string[]>>((routes, { method, path }) => {
  (routes[path] ??= []).push(method);
  return routes;
}, {});

export interface ProvisionerApiProps {
  readonly handler: lambda.IFunction;
  readonly authorization: ApiAuthorization;
  readonly logRetention: logs.RetentionDays;
}

/** REST API in front of the api function: SigV4 (IAM) by default, path parameters validated, throttled, access-logged. */
export class ProvisionerApi extends Construct {
  readonly api: apigw.RestApi;

  constructor(scope: Construct, id: string, props: ProvisionerApiProps) {
    super(scope, id);
    const accessLogs = new logs.LogGroup(this, 'AccessLogs', { retention: props.logRetention });
    this.api = new apigw.RestApi(this, 'Api', {
      description: 'EBS volume provisioner API',
      cloudWatchRole: true,
      deployOptions: {
        throttlingRateLimit: API.throttleRatePerSecond,
        throttlingBurstLimit: API.throttleBurst,
        accessLogDestination: new apigw.LogGroupLogDestination(accessLogs),
        accessLogFormat: apigw.AccessLogFormat.jsonWithStandardFields(),
        loggingLevel: apigw.MethodLoggingLevel.ERROR,
        metricsEnabled: true,
        tracingEnabled: false,
      },
      defaultMethodOptions: {
        authorizationType: props.authorization === 'iam' ? apigw.AuthorizationType.IAM : apigw.AuthorizationType.NONE,
      },
    });
    const validator = this.api.addRequestValidator('Validator', { validateRequestParameters: true, validateRequestBody: false });
    const integration = new apigw.LambdaIntegration(props.handler, { proxy: true });
    for (const [route, methods] of Object.entries(API_ROUTES)) {
      const resource = this.api.root.resourceForPath(route);
      const requestParameters = Object.fromEntries(
        [...route.matchAll(/\{(\w+)\}/g)].map((match) => [`method.request.path.${match[1]}`, true]),
      );
      for (const method of methods) {
        resource.addMethod(method, integration, { requestValidator: validator, requestParameters });
      }
    }
    Validations.of(this.api).acknowledge({
      id: 'AwsSolutions-APIG3',
      reason: 'Callers are authenticated with SigV4 and throttled by the stage; a WAF web ACL is left to the deployer, whose account rules it.',
    });
    Validations.of(this.api).acknowledge({
      id: 'AwsSolutions-COG4',
      reason: 'The API uses IAM (SigV4) authorization, not Cognito user pools: callers are AWS principals.',
    });
    Validations.of(this.api).acknowledge({
      id: 'AwsSolutions::AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      reason: 'API Gateway\'s account-level CloudWatch role needs AmazonAPIGatewayPushToCloudWatchLogs, the policy AWS maintains for exactly this.',
    });
    Validations.of(this.api).acknowledge({
      id: 'AwsSolutions-APIG2',
      reason: 'Path parameters are validated by API Gateway; bodies are validated by the api function against the same schemas that generate the OpenAPI document.',
    });
    if (props.authorization === 'none') {
      Validations.of(this.api).acknowledge({
        id: 'AwsSolutions-APIG4',
        reason: 'The deployer chose apiAuthorization=none explicitly (a synth warning says so), e.g. behind a private network.',
      });
    }
  }
}
