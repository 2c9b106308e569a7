/**
 * Acknowledging a wildcard IAM resource for cdk-nag needs the finding's exact id, which contains
 * the resource as cdk-nag prints it (`<Logical.Attr>` for references). This builds that id from
 * the same value the policy uses, so an acknowledgement cannot drift from the statement it covers.
 */
import { Stack, Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * A resolved CloudFormation value rendered the way cdk-nag's findings show it (its
 * `flattenCfnReference`): text with `${` as `<` and `}` as `>` (a policy variable such as
 * `${aws:username}` reads `<aws:username>`), a reference or attribute in `<…>`, a join by its
 * delimiter, a substitution by its text, an import by its export's name, and anything else as JSON.
 */
function render(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value.replaceAll('${', '<').replaceAll('}', '>');
  const object = (value ?? {}) as Record<string, unknown>;
  const join = object['Fn::Join'];
  if (Array.isArray(join)) return (join[1] as unknown[]).map(render).join(String(join[0]));
  if (object['Fn::Sub']) return render(object['Fn::Sub']);
  const getAtt = object['Fn::GetAtt'];
  if (Array.isArray(getAtt)) return `<${render(getAtt[0])}.${render(getAtt[1])}>`;
  if (object['Fn::ImportValue']) return render(object['Fn::ImportValue']);
  if (object.Ref) return `<${render(object.Ref)}>`;
  return JSON.stringify(value);
}

/** Acknowledges AwsSolutions-IAM5 for one wildcard `resource` in the policies under `scope`. */
export function acknowledgeWildcardResource(scope: IConstruct, resource: string, reason: string): void {
  Validations.of(scope).acknowledge({ id: `AwsSolutions-IAM5[Resource::${render(Stack.of(scope).resolve(resource))}]`, reason });
}
