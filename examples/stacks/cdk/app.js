// The "Billing" stack: a queue with its dead-letter queue, a function, a schedule group and
// two schedules, one to each, and an EventBridge rule on a schedule (the older way, which
// many stacks still use beside Scheduler) that reports to the same queue. The stack reader's tests synthesise it (`node app.js`, the
// assembly written where CDK_OUTDIR points) and load what CDK really writes.
"use strict";

const cdk = require("aws-cdk-lib");
const events = require("aws-cdk-lib/aws-events");
const eventsTargets = require("aws-cdk-lib/aws-events-targets");
const lambda = require("aws-cdk-lib/aws-lambda");
const scheduler = require("aws-cdk-lib/aws-scheduler");
const targets = require("aws-cdk-lib/aws-scheduler-targets");
const sqs = require("aws-cdk-lib/aws-sqs");

class BillingStack extends cdk.Stack {
  constructor(scope, id, props) {
    super(scope, id, props);

    const deadLetters = new sqs.Queue(this, "ChargeDeadLetters");
    const charges = new sqs.Queue(this, "ChargeQueue", {
      visibilityTimeout: cdk.Duration.minutes(5),
    });

    const chargeFn = new lambda.Function(this, "ChargeFn", {
      runtime: lambda.Runtime.NODEJS_22_X,
      handler: "index.handler",
      code: lambda.Code.fromInline(
        "exports.handler = async (event) => ({ charged: event.customer ?? null });",
      ),
    });

    const group = new scheduler.ScheduleGroup(this, "BillingSchedules", {
      scheduleGroupName: "billing",
    });

    // One role for both schedules, so that the test can follow both to the same ARN.
    const schedulerRole = new cdk.aws_iam.Role(this, "SchedulerRole", {
      assumedBy: new cdk.aws_iam.ServicePrincipal("scheduler.amazonaws.com"),
    });

    new scheduler.Schedule(this, "NightlyCharge", {
      scheduleGroup: group,
      description: "Charge every customer whose billing day it is",
      schedule: scheduler.ScheduleExpression.cron({
        minute: "30",
        hour: "2",
        timeZone: cdk.TimeZone.AMERICA_NEW_YORK,
      }),
      target: new targets.SqsSendMessage(charges, {
        role: schedulerRole,
        input: scheduler.ScheduleTargetInput.fromObject({
          run: "nightly",
          scheduledAt: scheduler.ContextAttribute.scheduledTime,
        }),
        retryAttempts: 3,
        maxEventAge: cdk.Duration.hours(2),
        deadLetterQueue: deadLetters,
      }),
    });

    new scheduler.Schedule(this, "HourlySweep", {
      scheduleGroup: group,
      schedule: scheduler.ScheduleExpression.rate(cdk.Duration.hours(1)),
      target: new targets.LambdaInvoke(chargeFn, {
        role: schedulerRole,
        input: scheduler.ScheduleTargetInput.fromObject({ customer: "sweep" }),
      }),
    });

    new events.Rule(this, "HourlyReport", {
      description: "Ask for the billing report every hour",
      schedule: events.Schedule.rate(cdk.Duration.hours(1)),
      targets: [
        new eventsTargets.SqsQueue(charges, {
          message: events.RuleTargetInput.fromObject({
            report: "hourly",
            at: events.EventField.time,
          }),
          retryAttempts: 2,
          maxEventAge: cdk.Duration.hours(1),
          deadLetterQueue: deadLetters,
        }),
      ],
    });
  }
}

const app = new cdk.App();
new BillingStack(app, "Billing", {
  env: { account: "111122223333", region: "eu-west-1" },
});
app.synth();
