/**
 * Acknowledging a wildcard IAM resource for cdk-nag needs the finding's exact id, which contains
 * the resource as cdk-nag prints it (`<Logical.Attr>` for references). This builds that id from
 * the same value the policy uses, so an acknowledgement cannot drift from the statement it covers.
 */
import { Stack, Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * A resolved CloudFormation value rendered the way cdk-nag's findings show it: text with `${` as
 * `<` and `}` as `>` (a policy variable such as `${aws:username}` reads `<aws:username>`).
 */
function render(value: unknown): string {
  if (typeof value === 'string') return value.replaceAll('${', '<').replaceAll('}', '>');
  if (value && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    if (typeof object.Ref === 'string') return `<${object.Ref}>`;
    const getAtt = object['Fn::GetAtt'];
    if (Array.isArray(getAtt)) return `<${getAtt.join('.')}>`;
    const join = object['Fn::Join'];
    if (Array.isArray(join) && Array.isArray(join[1])) return (join[1] as unknown[]).map(render).join(String(join[0]));
  }
  throw new Error(`cannot render ${JSON.stringify(value)} as a cdk-nag resource`);
}

/** Acknowledges AwsSolutions-IAM5 for one wildcard `resource` in the policies under `scope`. */
export function acknowledgeWildcardResource(scope: IConstruct, resource: string, reason: string): void {
  Validations.of(scope).acknowledge({ id: `AwsSolutions-IAM5[Resource::${render(Stack.of(scope).resolve(resource))}]`, reason });
}
