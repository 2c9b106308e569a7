/**
 * The CDK app: one EbsProvisionerStack, its options from CDK context (`-c key=value` or cdk.json).
 * Region and account come from the deploying credentials' environment.
 */
import { App } from 'aws-cdk-lib';
import { checkContextKeys, OptionError, optionsFromContext, stackNameFromContext } from './config.js';
import { EbsProvisionerStack } from './stack.js';

try {
  const app = new App();
  checkContextKeys(Object.keys(app.node.getAllContext()));
  const stackName = stackNameFromContext((key) => app.node.tryGetContext(key));
  new EbsProvisionerStack(app, stackName, {
    ...optionsFromContext((key) => app.node.tryGetContext(key)),
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
    description: 'Serverless EBS volume provisioner',
  });
  app.synth();
} catch (error) {
  // An option the user gave wrong: its message says which and what it takes; a stack trace would bury it.
  if (!(error instanceof OptionError)) throw error;
  process.stderr.write(`error: ${error.message}\n`);
  process.exitCode = 1;
}
