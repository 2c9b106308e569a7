/**
 * Synthesizes EbsProvisionerStack for the template tests, with cdk-nag's AwsSolutions checks
 * attached (synthesis throws on an unacknowledged finding), and returns the template and the
 * cloud assembly directory. Bundling is slow, so each test file synthesizes once in beforeAll.
 */
import { App, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EbsProvisionerStack, type EbsProvisionerStackProps } from '../../infra/stack.js';

export const TEST_ENV = { account: '123456789012', region: 'eu-west-1' } as const;

/** The feature flags and options under `context` in cdk.json, which `cdk synth` and `cdk deploy` apply to the app. */
export const CDK_JSON_CONTEXT = (JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as { context?: Record<string, unknown> }).context ?? {};

export interface Synthesized {
  app: App;
  stack: EbsProvisionerStack;
  template: Template;
  /** The raw template, for checks the matchers cannot express. */
  json: { Resources: Record<string, { Type: string; Properties?: Record<string, unknown>; DeletionPolicy?: string }> };
  outdir: string;
}

/** The cloud assembly directories `synthesize` wrote and `removeSynthesized` has not removed yet. */
const written: string[] = [];

/**
 * Removes every cloud assembly `synthesize` wrote (with bundles, some 16 MB each): each test file
 * that synthesizes calls it after all its tests.
 */
export function removeSynthesized(): void {
  for (const outdir of written.splice(0)) rmSync(outdir, { recursive: true, force: true });
}

/** `bundle: false` skips esbuild (the code becomes a placeholder), for tests of options only. */
export function synthesize(props: EbsProvisionerStackProps = {}, options: { bundle?: boolean; stackName?: string } = {}): Synthesized {
  const outdir = mkdtempSync(join(tmpdir(), 'ebs-provisioner-synth-'));
  written.push(outdir);
  // With cdk.json's context, so the template and cdk-nag's checks are those of a deployment.
  const app = new App({ outdir, context: { ...CDK_JSON_CONTEXT, ...(options.bundle === false ? { 'aws:cdk:bundling-stacks': [] } : {}) } });
  const stack = new EbsProvisionerStack(app, options.stackName ?? 'EbsProvisionerTest', { env: TEST_ENV, ...props });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  const assembly = app.synth();
  const json = assembly.getStackByName(stack.stackName).template as Synthesized['json'];
  return { app, stack, template: Template.fromJSON(json), json, outdir };
}

/** Every cdk-nag acknowledgement in the app: the finding id (without the `Annotation::` prefix CDK stores) and its reason. */
export function acknowledgements(app: App): { id: string; reason: string }[] {
  return app.node
    .findAll()
    .flatMap((construct) => construct.node.metadata.filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY))
    .flatMap((entry) => Object.entries(entry.data as Record<string, string>).map(([id, reason]) => ({ id: id.replace(/^Annotation::/, ''), reason })));
}

/** What cdk-nag's checks ask of each resource: whether a finding on it is acknowledged there or above it. */
interface ConsultingChecks {
  isAcknowledged(resource: IConstruct, ruleId: string): boolean;
}

/**
 * The acknowledgements in the app (`path id`, the construct holding it) that no finding of
 * cdk-nag's AwsSolutions checks is acknowledged by: those of a rule or a resource that no longer
 * needs one. Runs the checks once more, noting the acknowledgement each finding is answered by.
 */
export function unneededAcknowledgements(app: App): string[] {
  const checks = new AwsSolutionsChecks();
  const consulting = checks as unknown as ConsultingChecks;
  const answers = new Set<string>();
  const ids = (construct: IConstruct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) => Object.keys(entry.data as Record<string, string>).map((id) => id.replace(/^Annotation::/i, '')));
  consulting.isAcknowledged = (resource, ruleId) => {
    for (let construct: IConstruct | undefined = resource; construct; construct = construct.node.scope) {
      if (ids(construct).includes(ruleId)) {
        answers.add(`${construct.node.path} ${ruleId}`);
        return true;
      }
    }
    return false;
  };
  checks.validateScope(app);
  return app.node
    .findAll()
    .flatMap((construct) => ids(construct).map((id) => `${construct.node.path} ${id}`))
    .filter((acknowledgement) => !answers.has(acknowledgement));
}

/** Logical ids of the resources of `type`. */
export function logicalIds(json: Synthesized['json'], type: string): string[] {
  return Object.entries(json.Resources).filter(([, resource]) => resource.Type === type).map(([id]) => id);
}

/** The single resource of `type` whose logical id starts with `prefix`. */
export function resourceId(json: Synthesized['json'], type: string, prefix: string): string {
  const ids = logicalIds(json, type).filter((id) => id.startsWith(prefix));
  if (ids.length !== 1) throw new Error(`expected one ${type} starting with ${prefix}, found ${ids.join(', ') || 'none'}`);
  return ids[0]!;
}

export interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, Record<string, unknown>>;
  Sid?: string;
}

/** All statements of the policies attached to `roleId`. */
export function roleStatements(json: Synthesized['json'], roleId: string): Statement[] {
  return Object.values(json.Resources)
    .filter((resource) => resource.Type === 'AWS::IAM::Policy')
    .filter((resource) => (resource.Properties?.Roles as unknown[]).some((role) => JSON.stringify(role) === JSON.stringify({ Ref: roleId })))
    .flatMap((resource) => (resource.Properties?.PolicyDocument as { Statement: Statement[] }).Statement);
}

export const actionsOf = (statement: Statement): string[] => (Array.isArray(statement.Action) ? statement.Action : [statement.Action]);
export const resourcesOf = (statement: Statement): unknown[] => (Array.isArray(statement.Resource) ? statement.Resource : [statement.Resource]);
