/** A whole `DesignResult` for tests of what is made from one (tables, verdicts). */
import type { DesignResult } from '../../bench/report.js';
import { EC2_ACTIONS } from '../../bench/sim/token-bucket.js';

/** A provisioner run of N = 1000 that meets every target, with `changes` applied. */
export function designResult(changes: Partial<DesignResult> = {}): DesignResult {
  const volumes = changes.volumes ?? 1000;
  return {
    design: 'provisioner',
    workload: 'burst',
    volumes,
    instances: Math.max(3, Math.ceil(volumes / 20)),
    seed: 1,
    converged: volumes,
    failed: 0,
    failureReasons: [],
    unfinished: 0,
    leakedVolumes: 0,
    duplicateVolumes: 0,
    doubleAttaches: 0,
    ec2Calls: {
      ...(Object.fromEntries(EC2_ACTIONS.map((action) => [action, 0])) as DesignResult['ec2Calls']),
      CreateVolume: volumes,
      AttachVolume: volumes,
      DetachVolume: volumes,
      DeleteVolume: volumes,
    },
    ec2CallsTotal: 4 * volumes,
    ec2CallsPerLifecycle: 4,
    requestLimitExceeded: 0,
    makespanMs: 100_000,
    lowerBound: { ms: 100_000, derivation: 'arrivals', terms: [] },
    makespanToBound: 1,
    overheadP50Ms: 1000,
    overheadP99Ms: 3000,
    functions: [],
    lambdaArchitecture: 'arm64',
    apiGatewayRequests: 2 * volumes,
    lambdaInvocations: 0,
    lambdaGbSeconds: 0,
    sqsRequests: 0,
    dynamodbWriteUnits: 0,
    dynamodbReadUnits: 0,
    cost: { apiGateway: 0, lambdaRequests: 0, lambdaDuration: 0, sqs: 0, dynamodbWrites: 0, dynamodbReads: 0, total: 0 },
    costPer1000Requested: 0.01,
    costPer1000Converged: 0.01,
    operationsFailedByThrottling: 0,
    timeline: [],
    virtualEvents: 0,
    wallMs: 1000,
    ...changes,
  };
}

