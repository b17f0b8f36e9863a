// The "Payments" stack: a Python function whose code is an asset directory (./charge), its
// asynchronous invocation's settings and failure destination, a Node.js function beside
// it, and a schedule that invokes the Python one. The functions wing's tests synthesise it
// (`node app.js`, the assembly written where CDK_OUTDIR points) and run what CDK writes.
"use strict";

const path = require("path");
const cdk = require("aws-cdk-lib");
const destinations = require("aws-cdk-lib/aws-lambda-destinations");
const lambda = require("aws-cdk-lib/aws-lambda");
const scheduler = require("aws-cdk-lib/aws-scheduler");
const targets = require("aws-cdk-lib/aws-scheduler-targets");
const sqs = require("aws-cdk-lib/aws-sqs");

class PaymentsStack extends cdk.Stack {
  constructor(scope, id, props) {
    super(scope, id, props);

    const failures = new sqs.Queue(this, "ChargeFailures");

    const chargeFn = new lambda.Function(this, "ChargeFn", {
      runtime: lambda.Runtime.PYTHON_3_12,
      handler: "app.handler",
      code: lambda.Code.fromAsset(path.join(__dirname, "charge")),
      timeout: cdk.Duration.seconds(20),
      memorySize: 256,
      environment: { CURRENCY: "EUR" },
      retryAttempts: 1,
      maxEventAge: cdk.Duration.minutes(30),
      onFailure: new destinations.SqsDestination(failures),
    });

    new lambda.Function(this, "ReceiptFn", {
      runtime: lambda.Runtime.NODEJS_22_X,
      handler: "index.handler",
      code: lambda.Code.fromInline("exports.handler = async () => ({});"),
    });

    new scheduler.Schedule(this, "DailyCharge", {
      schedule: scheduler.ScheduleExpression.rate(cdk.Duration.days(1)),
      target: new targets.LambdaInvoke(chargeFn, {
        input: scheduler.ScheduleTargetInput.fromObject({ customer: "c-42" }),
      }),
    });
  }
}

const app = new cdk.App();
new PaymentsStack(app, "Payments", {
  env: { account: "111122223333", region: "eu-west-1" },
});
app.synth();
