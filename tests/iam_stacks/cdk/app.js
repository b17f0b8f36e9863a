// The eight cases of IAM on the clock, as aws-cdk-lib writes them: a schedule and a rule
// that AWS lets deliver, and six that it refuses. The tests synthesise it (`node app.js`,
// with NODE_PATH at examples/stacks/cdk/node_modules and the assembly written where
// CDK_OUTDIR points).
//
// Three stacks, so that each loads on its own: "Permissions" holds the cases that AWS
// creates and then refuses at each delivery; "LambdaTrust" a schedule whose role only
// Lambda may assume, which CreateSchedule itself refuses; "ForeignTrust" a schedule whose
// role Scheduler may assume only for another account.
//
// Schedules and the refused rules are written with the L1 constructs (CfnSchedule,
// CfnRule): the L2 targets grant their role, or add the queue's policy, by themselves.
"use strict";

const cdk = require("aws-cdk-lib");
const events = require("aws-cdk-lib/aws-events");
const eventsTargets = require("aws-cdk-lib/aws-events-targets");
const iam = require("aws-cdk-lib/aws-iam");
const lambda = require("aws-cdk-lib/aws-lambda");
const scheduler = require("aws-cdk-lib/aws-scheduler");
const sqs = require("aws-cdk-lib/aws-sqs");

const ENV = { account: "123456789012", region: "eu-west-1" };
const OTHER_ACCOUNT = "111111111111";

// A role Scheduler may assume for this stack's account only, as AWS's guide writes it.
function schedulerRole(stack, id, account = stack.account) {
  return new iam.Role(stack, id, {
    assumedBy: new iam.ServicePrincipal("scheduler.amazonaws.com", {
      conditions: { StringEquals: { "aws:SourceAccount": account } },
    }),
  });
}

function hourlySchedule(stack, id, queue, role) {
  return new scheduler.CfnSchedule(stack, id, {
    scheduleExpression: "rate(1 hour)",
    flexibleTimeWindow: { mode: "OFF" },
    target: { arn: queue.queueArn, roleArn: role.roleArn, input: JSON.stringify({ case: id }) },
  });
}

class PermissionsStack extends cdk.Stack {
  constructor(scope, id, props) {
    super(scope, id, props);
    const queue = new sqs.Queue(this, "Jobs");

    // 1. Granted: Scheduler may assume the role, which may send to the queue.
    const granted = schedulerRole(this, "GrantedRole");
    queue.grantSendMessages(granted);
    hourlySchedule(this, "GrantedSchedule", queue, granted);

    // 3. A role with no permission at all.
    hourlySchedule(this, "UnpermittedSchedule", queue, schedulerRole(this, "BareRole"));

    // 4. An explicit Deny beside the Allow the grant adds.
    const denied = schedulerRole(this, "DeniedRole");
    queue.grantSendMessages(denied);
    denied.addToPolicy(
      new iam.PolicyStatement({
        sid: "NoSending",
        effect: iam.Effect.DENY,
        actions: ["sqs:SendMessage"],
        resources: [queue.queueArn],
      }),
    );
    hourlySchedule(this, "DeniedSchedule", queue, denied);

    // 2. Granted: the L2 target adds the queue policy that lets this rule send.
    const reports = new sqs.Queue(this, "Reports");
    new events.Rule(this, "GrantedRule", {
      schedule: events.Schedule.rate(cdk.Duration.hours(1)),
      targets: [new eventsTargets.SqsQueue(reports)],
    });

    // 7. A rule aimed at a function that has no AWS::Lambda::Permission.
    const worker = new lambda.Function(this, "Worker", {
      runtime: lambda.Runtime.NODEJS_22_X,
      handler: "index.handler",
      code: lambda.Code.fromInline("exports.handler = async () => null;"),
    });
    new events.CfnRule(this, "UninvitedRule", {
      scheduleExpression: "rate(1 hour)",
      targets: [{ id: "worker", arn: worker.functionArn }],
    });

    // 8. A rule aimed at a queue whose policy lets SNS send, not EventBridge.
    const alerts = new sqs.Queue(this, "Alerts");
    alerts.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: "FromSns",
        principals: [new iam.ServicePrincipal("sns.amazonaws.com")],
        actions: ["sqs:SendMessage"],
        resources: [alerts.queueArn],
      }),
    );
    new events.CfnRule(this, "RefusedRule", {
      scheduleExpression: "rate(1 hour)",
      targets: [{ id: "alerts", arn: alerts.queueArn }],
    });
  }
}

// 5. A role only Lambda may assume.
class LambdaTrustStack extends cdk.Stack {
  constructor(scope, id, props) {
    super(scope, id, props);
    const queue = new sqs.Queue(this, "Jobs");
    const role = new iam.Role(this, "LambdaRole", {
      assumedBy: new iam.ServicePrincipal("lambda.amazonaws.com"),
    });
    queue.grantSendMessages(role);
    hourlySchedule(this, "LambdaRoleSchedule", queue, role);
  }
}

// 6. A trust condition on another account.
class ForeignTrustStack extends cdk.Stack {
  constructor(scope, id, props) {
    super(scope, id, props);
    const queue = new sqs.Queue(this, "Jobs");
    const role = schedulerRole(this, "ForeignRole", OTHER_ACCOUNT);
    queue.grantSendMessages(role);
    hourlySchedule(this, "ForeignSchedule", queue, role);
  }
}

const app = new cdk.App();
new PermissionsStack(app, "Permissions", { env: ENV });
new LambdaTrustStack(app, "LambdaTrust", { env: ENV });
new ForeignTrustStack(app, "ForeignTrust", { env: ENV });
app.synth();
