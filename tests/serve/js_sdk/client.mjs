// One application's calls with the AWS SDK for JavaScript v3: create a schedule group, then
// list the groups. Prints, as JSON, what the calls answered and the clock offset the SDK
// settled on from the answers' Date headers (its clock-skew correction).
//
// usage: node client.mjs ENDPOINT ACCESS_KEY SECRET GROUP
import {
  CreateScheduleGroupCommand,
  ListScheduleGroupsCommand,
  SchedulerClient,
} from "@aws-sdk/client-scheduler";

const [endpoint, accessKeyId, secretAccessKey, group] = process.argv.slice(2);
const client = new SchedulerClient({
  endpoint,
  region: "us-east-1",
  credentials: { accessKeyId, secretAccessKey },
  // One attempt: a call that needs the SDK to correct its clock and retry fails here.
  maxAttempts: 1,
});
const outcome = { offset: null };
try {
  await client.send(new CreateScheduleGroupCommand({ Name: group }));
  const listed = await client.send(new ListScheduleGroupsCommand({}));
  outcome.groups = listed.ScheduleGroups.map((g) => g.Name);
} catch (error) {
  outcome.error = { name: error.name, message: error.message };
}
outcome.offset = client.config.systemClockOffset ?? 0;
console.log(JSON.stringify(outcome));
