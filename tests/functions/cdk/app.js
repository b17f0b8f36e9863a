// The "Payments" stack: a Python function whose code is an asset directory (./charge), its
// asynchronous invocation's settings and failure destination, a Node.js function beside
// it; a schedule that invokes the Python one daily, one whose charges are declined, an
// hourly EventBridge rule that invokes it too, and a schedule that invokes the Node.js one.
// The function schedules each charge's receipt with its own Scheduler client, to a queue
// through a role the stack grants. The functions wing's tests synthesise it
// (`node app.js`, the assembly written where CDK_OUTDIR points) and run what CDK writes.
"use strict";

const path = require("path");
const cdk = require("aws-cdk-lib");
const destinations = require("aws-cdk-lib/aws-lambda-destinations");
const events = require("aws-cdk-lib/aws-events");
const eventsTargets = require("aws-cdk-lib/aws-events-targets");
const iam = require("aws-cdk-lib/aws-iam");
const lambda = require("aws-cdk-lib/aws-lambda");
const scheduler = require("aws-cdk-lib/aws-scheduler");
const targets = require("aws-cdk-lib/aws-scheduler-targets");
const sqs = require("aws-cdk-lib/aws-sqs");

class PaymentsStack extends cdk.Stack {
  constructor(scope, id, props) {
    super(scope, id, props);

    const failures = new sqs.Queue(this, "ChargeFailures");
    const receipts = new sqs.Queue(this, "Receipts");
    const receiptRole = new iam.Role(this, "ReceiptRole", {
      assumedBy: new iam.ServicePrincipal("scheduler.amazonaws.com"),
    });
    receipts.grantSendMessages(receiptRole);

    const chargeFn = new lambda.Function(this, "ChargeFn", {
      runtime: lambda.Runtime.PYTHON_3_12,
      handler: "app.handler",
      code: lambda.Code.fromAsset(path.join(__dirname, "charge")),
      timeout: cdk.Duration.seconds(20),
      memorySize: 256,
      environment: {
        CURRENCY: "EUR",
        RECEIPTS_QUEUE: receipts.queueArn,
        RECEIPTS_ROLE: receiptRole.roleArn,
      },
      retryAttempts: 1,
      maxEventAge: cdk.Duration.minutes(30),
      onFailure: new destinations.SqsDestination(failures),
    });

    chargeFn.addToRolePolicy(
      new iam.PolicyStatement({ actions: ["scheduler:CreateSchedule"], resources: ["*"] }),
    );
    receiptRole.grantPassRole(chargeFn.role);

    const receiptFn = new lambda.Function(this, "ReceiptFn", {
      runtime: lambda.Runtime.NODEJS_22_X,
      handler: "index.handler",
      code: lambda.Code.fromInline("exports.handler = async () => ({});"),
    });

    new scheduler.Schedule(this, "DailyCharge", {
      schedule: scheduler.ScheduleExpression.rate(cdk.Duration.days(1)),
      target: new targets.LambdaInvoke(chargeFn, {
        input: scheduler.ScheduleTargetInput.fromObject({
          customer: "c-42",
          scheduledAt: scheduler.ContextAttribute.scheduledTime,
        }),
      }),
    });

    new scheduler.Schedule(this, "DeclinedCharge", {
      schedule: scheduler.ScheduleExpression.rate(cdk.Duration.days(1)),
      target: new targets.LambdaInvoke(chargeFn, {
        input: scheduler.ScheduleTargetInput.fromObject({ customer: "c-13", decline: true }),
      }),
    });

    new events.Rule(this, "HourlyCharge", {
      schedule: events.Schedule.rate(cdk.Duration.hours(1)),
      targets: [
        new eventsTargets.LambdaFunction(chargeFn, {
          event: events.RuleTargetInput.fromObject({ customer: "c-7", via: "rule" }),
        }),
      ],
    });

    new scheduler.Schedule(this, "DailyReceipt", {
      schedule: scheduler.ScheduleExpression.rate(cdk.Duration.days(1)),
      target: new targets.LambdaInvoke(receiptFn, {}),
    });
  }
}

const app = new cdk.App();
new PaymentsStack(app, "Payments", {
  env: { account: "111122223333", region: "eu-west-1" },
});
app.synth();
