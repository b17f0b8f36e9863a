"""The IAM User Guide's worked examples of policy evaluation, each decided as the guide says
(the page is named in each test's docstring)."""

from __future__ import annotations

from pytest_schedemu.iam import (
    EXPLICIT_DENY,
    IMPLICIT_DENY,
    UNTRUSTED,
    Context,
    Principal,
    Request,
    authorize,
    evaluate_identity,
    evaluate_resource,
    evaluate_trust,
)

from .documents import allow, ask, deny, identity, resource, trust

ACCOUNT = "123456789012"
OTHER = "111122223333"
CARLOS = Principal.aws(f"arn:aws:iam::{ACCOUNT}:user/carlossalazar")
CARLOS_POLICY = identity(
    {
        "Sid": "AllowS3ListRead",
        "Effect": "Allow",
        "Action": [
            "s3:GetBucketLocation",
            "s3:GetAccountPublicAccessBlock",
            "s3:ListAccessPoints",
            "s3:ListAllMyBuckets",
        ],
        "Resource": "arn:aws:s3:::*",
    },
    {
        "Sid": "AllowS3Self",
        "Effect": "Allow",
        "Action": "s3:*",
        "Resource": [
            "arn:aws:s3:::amzn-s3-demo-bucket-carlossalazar/*",
            "arn:aws:s3:::amzn-s3-demo-bucket-carlossalazar",
        ],
    },
    {"Sid": "DenyS3Logs", "Effect": "Deny", "Action": "s3:*", "Resource": "arn:aws:s3:::*log*"},
    name="carlossalazar",
)
CARLOS_LOGS_BUCKET_POLICY = resource(
    {
        "Sid": "AllowCarlosLogs",
        "Effect": "Allow",
        "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:user/carlossalazar"},
        "Action": "s3:*",
        "Resource": "arn:aws:s3:::amzn-s3-demo-bucket-carlossalazar-logs/*",
    },
    name="amzn-s3-demo-bucket-carlossalazar-logs",
)


def test_an_explicit_deny_in_the_identity_policy_overrides_the_buckets_allow() -> None:
    """Policy evaluation for requests within a single account, "Example identity-based and
    resource-based policy evaluation": the bucket policy allows Carlos to save a file to
    the ``-logs`` bucket, but DenyS3Logs in his own policy denies every bucket whose name
    holds ``log``, and an explicit deny wins."""
    saved = Request(
        "s3:PutObject", "arn:aws:s3:::amzn-s3-demo-bucket-carlossalazar-logs/file.txt", CARLOS
    )
    decision = authorize(saved, identity=[CARLOS_POLICY], resource_policy=CARLOS_LOGS_BUCKET_POLICY)
    assert not decision.allowed
    assert decision.kind == EXPLICIT_DENY
    assert decision.reason == "an explicit Deny in carlossalazar (statement DenyS3Logs)"


def test_carlos_has_full_access_to_the_bucket_named_after_him() -> None:
    """Policy evaluation for requests within a single account: AllowS3Self grants every S3
    action on Carlos's own bucket and its objects, and AllowS3ListRead lists all buckets."""
    own = "arn:aws:s3:::amzn-s3-demo-bucket-carlossalazar"
    assert ask(CARLOS_POLICY, "s3:PutObject", own + "/report.csv").allowed
    assert ask(CARLOS_POLICY, "s3:DeleteBucket", own).allowed
    assert ask(CARLOS_POLICY, "s3:ListAllMyBuckets", "arn:aws:s3:::any-bucket").allowed
    other = ask(CARLOS_POLICY, "s3:PutObject", "arn:aws:s3:::amzn-s3-demo-bucket-maria/x")
    assert (other.allowed, other.kind) == (False, IMPLICIT_DENY)


def test_within_one_account_the_resource_policy_alone_can_allow() -> None:
    """Policy evaluation for requests within a single account ("Important: If either the
    identity-based policy or the resource-based policy within the same account allows the
    request and the other doesn't, the request is still allowed")."""
    queue = f"arn:aws:sqs:us-east-1:{ACCOUNT}:orders"
    worker = Principal.aws(f"arn:aws:iam::{ACCOUNT}:role/worker")
    queue_policy = resource(
        {
            "Effect": "Allow",
            "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:role/worker"},
            "Action": "sqs:SendMessage",
            "Resource": queue,
        }
    )
    nothing = identity(allow("s3:GetObject", "*"))
    request = Request("sqs:SendMessage", queue, worker)
    assert authorize(request, identity=[nothing], resource_policy=queue_policy).allowed
    # ...and the identity policy alone too.
    sends = identity(allow("sqs:SendMessage", queue))
    assert authorize(request, identity=[sends]).allowed
    assert not authorize(request, identity=[nothing]).allowed


def test_a_resource_policy_naming_the_account_delegates_to_the_identity_policies() -> None:
    """AWS JSON policy elements: Principal, "AWS account principals": naming an account
    delegates to it, and its principals get access only as their IAM policies allow."""
    queue = f"arn:aws:sqs:us-east-1:{ACCOUNT}:orders"
    worker = Principal.aws(f"arn:aws:iam::{ACCOUNT}:role/worker")
    to_account = resource(
        {"Effect": "Allow", "Principal": {"AWS": ACCOUNT}, "Action": "sqs:*", "Resource": queue}
    )
    request = Request("sqs:SendMessage", queue, worker)
    assert not authorize(request, resource_policy=to_account).allowed
    allowed = authorize(
        request, identity=[identity(allow("sqs:*", queue))], resource_policy=to_account
    )
    assert allowed.allowed


def test_across_accounts_both_the_identity_and_the_resource_policy_must_allow() -> None:
    """Cross-account policy evaluation logic: the principal's identity policy and the
    resource's policy in the other account must both allow the request."""
    queue = f"arn:aws:sqs:us-east-1:{OTHER}:shared"
    worker = Principal.aws(f"arn:aws:iam::{ACCOUNT}:role/worker")
    request = Request("sqs:SendMessage", queue, worker)
    sends = identity(allow("sqs:SendMessage", queue))
    lets_in = resource(
        {
            "Effect": "Allow",
            "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:root"},
            "Action": "sqs:SendMessage",
            "Resource": queue,
        }
    )
    assert authorize(request, identity=[sends], resource_policy=lets_in).allowed
    only_identity = authorize(request, identity=[sends])
    assert not only_identity.allowed
    assert only_identity.reason == (
        f"arn:aws:iam::{ACCOUNT}:role/worker is of another account than {queue}, so the "
        "resource's policy must allow it too, and no statement of it allows sqs:SendMessage"
    )
    assert not authorize(request, resource_policy=lets_in).allowed


def test_a_deny_with_notaction_denies_everything_but_the_actions_it_lists() -> None:
    """IAM JSON policy elements: NotAction, "Using NotAction with Deny": deny every action
    but the listed IAM ones when the user did not sign in with MFA (BoolIfExists)."""
    policy = identity(
        allow("*", "*"),
        {
            "Sid": "DenyAllUsersNotUsingMFA",
            "Effect": "Deny",
            "NotAction": "iam:*",
            "Resource": "*",
            "Condition": {"BoolIfExists": {"aws:MultiFactorAuthPresent": "false"}},
        },
    )
    assert ask(policy, "iam:ListUsers").allowed
    refused = ask(policy, "s3:ListAllMyBuckets")
    assert refused.reason == "an explicit Deny in identity (statement DenyAllUsersNotUsingMFA)"
    assert not ask(policy, "s3:ListAllMyBuckets", aws__MultiFactorAuthPresent=False).allowed
    assert ask(policy, "s3:ListAllMyBuckets", aws__MultiFactorAuthPresent=True).allowed


def test_an_allow_with_notaction_allows_all_but_the_listed_actions() -> None:
    """IAM JSON policy elements: NotAction, "Using NotAction with Allow": every action but
    IAM's; an action it does not allow is implicitly denied, not explicitly."""
    policy = identity({"Effect": "Allow", "NotAction": "iam:*", "Resource": "*"})
    assert ask(policy, "sqs:SendMessage", "arn:aws:sqs:us-east-1:1:q").allowed
    refused = ask(policy, "IAM:CreateUser")
    assert (refused.allowed, refused.kind) == (False, IMPLICIT_DENY)


def test_notresource_with_deny_leaves_only_the_named_resources() -> None:
    """IAM JSON policy elements: NotResource: a Deny of every S3 action on every resource
    but the payroll folder, beside an Allow of all S3."""
    policy = identity(
        allow("s3:*", "*"),
        {
            "Effect": "Deny",
            "Action": "s3:*",
            "NotResource": [
                "arn:aws:s3:::HRBucket/Payroll",
                "arn:aws:s3:::HRBucket/Payroll/*",
            ],
        },
    )
    assert ask(policy, "s3:GetObject", "arn:aws:s3:::HRBucket/Payroll/2026.csv").allowed
    assert not ask(policy, "s3:GetObject", "arn:aws:s3:::HRBucket/Benefits/a.csv").allowed


def test_ec2_stop_is_denied_without_mfa_even_though_ec2_star_is_allowed() -> None:
    """Amazon EC2: Requires MFA (GetSessionToken) for specific EC2 operations: the Deny
    uses BoolIfExists, so it applies when the MFA key is absent as well as when false."""
    policy = identity(
        {"Sid": "AllowAllActionsForEC2", "Effect": "Allow", "Action": "ec2:*", "Resource": "*"},
        {
            "Sid": "DenyStopAndTerminateWhenMFAIsNotPresent",
            "Effect": "Deny",
            "Action": ["ec2:StopInstances", "ec2:TerminateInstances"],
            "Resource": "*",
            "Condition": {"BoolIfExists": {"aws:MultiFactorAuthPresent": False}},
        },
    )
    assert ask(policy, "ec2:RunInstances").allowed
    assert ask(policy, "ec2:StopInstances").kind == EXPLICIT_DENY
    assert ask(policy, "ec2:StopInstances", aws__MultiFactorAuthPresent="true").allowed


def test_a_service_principal_is_let_in_by_the_resource_policy_alone() -> None:
    """Amazon EventBridge User Guide, "Using resource-based policies for Amazon
    EventBridge" (SQS permissions): the queue's policy lets ``events.amazonaws.com`` send,
    limited to one rule by ``aws:SourceArn``."""
    queue = f"arn:aws:sqs:us-east-1:{ACCOUNT}:orders"
    rule = f"arn:aws:events:us-east-1:{ACCOUNT}:rule/nightly"
    policy = resource(
        {
            "Sid": "EventsToMyQueue",
            "Effect": "Allow",
            "Principal": {"Service": "events.amazonaws.com"},
            "Action": "sqs:SendMessage",
            "Resource": queue,
            "Condition": {"ArnEquals": {"aws:SourceArn": rule}},
        },
        name="orders queue policy",
    )
    events = Principal.service("events.amazonaws.com")
    sent = Request("sqs:SendMessage", queue, events, Context.of({"aws:SourceArn": rule}))
    assert evaluate_resource(policy, sent).allowed
    other_rule = Request(
        "sqs:SendMessage", queue, events, Context.of({"aws:SourceArn": rule + "-2"})
    )
    refused = evaluate_resource(policy, other_rule)
    assert refused.reason == (
        f"condition ArnEquals aws:SourceArn is {rule}-2, not {rule} "
        "(orders queue policy, statement EventsToMyQueue)"
    )
    lambda_service = Request("sqs:SendMessage", queue, Principal.service("lambda.amazonaws.com"))
    assert evaluate_resource(policy, lambda_service).reason == (
        f"no statement allows sqs:SendMessage on {queue}"
    )


SCHEDULER_TRUST = trust(
    {
        "Effect": "Allow",
        "Principal": {"Service": "scheduler.amazonaws.com"},
        "Action": "sts:AssumeRole",
        "Condition": {"StringEquals": {"aws:SourceAccount": ACCOUNT}},
    },
    name="scheduler-role trust",
)
ROLE = f"arn:aws:iam::{ACCOUNT}:role/scheduler-role"
SCHEDULER = Principal.service("scheduler.amazonaws.com")


def test_a_trust_policy_lets_the_scheduler_assume_the_role_from_its_own_account() -> None:
    """The confused deputy problem (IAM User Guide) and EventBridge Scheduler's "Setting up
    the execution role": the trust policy names ``scheduler.amazonaws.com`` and limits it
    to the account by ``aws:SourceAccount``."""
    context = Context.of({"aws:SourceAccount": ACCOUNT})
    assert evaluate_trust(SCHEDULER_TRUST, SCHEDULER, role_arn=ROLE, context=context).allowed


def test_the_trust_condition_on_another_account_refuses_and_says_which() -> None:
    """The confused deputy problem: a request from a schedule of another account carries
    that account as ``aws:SourceAccount``, and the condition refuses it."""
    context = Context.of({"aws:SourceAccount": OTHER})
    decision = evaluate_trust(SCHEDULER_TRUST, SCHEDULER, role_arn=ROLE, context=context)
    assert decision.kind == UNTRUSTED
    assert decision.reason == (
        "the trust policy does not let scheduler.amazonaws.com assume it: condition "
        f"StringEquals aws:SourceAccount is {OTHER}, not {ACCOUNT} "
        "(scheduler-role trust, statement 0)"
    )


def test_a_role_only_lambda_may_assume_refuses_the_scheduler() -> None:
    """AWS JSON policy elements: Principal, "AWS service principals": only the services the
    trust policy names may assume the role."""
    lambda_only = trust(
        {
            "Effect": "Allow",
            "Principal": {"Service": ["lambda.amazonaws.com"]},
            "Action": "sts:AssumeRole",
        }
    )
    decision = evaluate_trust(lambda_only, SCHEDULER, role_arn=ROLE)
    assert (decision.allowed, decision.kind) == (False, UNTRUSTED)
    assert decision.reason == "the trust policy does not let scheduler.amazonaws.com assume it"
    lambda_service = Principal.service("lambda.amazonaws.com")
    assert evaluate_trust(lambda_only, lambda_service, role_arn=ROLE).allowed


def test_a_trust_policy_naming_the_account_needs_the_callers_own_permission() -> None:
    """AWS JSON policy elements: Principal, "AWS account principals", and "Cross-account
    policy evaluation logic": a trust policy naming an account delegates to that account's
    identity policies, which must allow ``sts:AssumeRole`` on the role."""
    by_account = trust({"Effect": "Allow", "Principal": {"AWS": OTHER}, "Action": "sts:AssumeRole"})
    caller = Principal.aws(f"arn:aws:iam::{OTHER}:role/deployer")
    refused = evaluate_trust(by_account, caller, role_arn=ROLE)
    assert refused.kind == UNTRUSTED
    assert "policies must allow sts:AssumeRole too" in refused.reason
    may_assume = identity(allow("sts:AssumeRole", ROLE))
    assert evaluate_trust(by_account, caller, role_arn=ROLE, identity=[may_assume]).allowed


def test_identity_policies_are_the_union_of_a_roles_inline_and_attached_policies() -> None:
    """Policy evaluation logic, "Identity-based policies": the role's policies together; an
    Allow in any of them suffices, a Deny in any of them wins."""
    queue = f"arn:aws:sqs:us-east-1:{ACCOUNT}:orders"
    inline = identity(allow("lambda:InvokeFunction", "*"), name="inline")
    attached = identity(allow("sqs:SendMessage", queue), name="SendToOrders")
    denies = identity(deny("sqs:*", "*"), name="NoQueues")
    request = Request("sqs:SendMessage", queue)
    assert evaluate_identity([inline, attached], request).allowed
    refused = evaluate_identity([inline, attached, denies], request)
    assert refused.reason == "an explicit Deny in NoQueues (statement 0)"


def test_the_schedulers_documented_trust_policy_checks_account_and_schedule_group() -> None:
    """EventBridge Scheduler User Guide, "Setting up the execution role": the trust policy
    lets ``scheduler.amazonaws.com`` in with ``aws:SourceAccount`` and ``aws:SourceArn``
    (the schedule group's ARN) both equal to the schedule's own."""
    group = f"arn:aws:scheduler:us-west-2:{ACCOUNT}:schedule-group/your-schedule-group"
    documented = trust(
        {
            "Effect": "Allow",
            "Principal": {"Service": "scheduler.amazonaws.com"},
            "Action": "sts:AssumeRole",
            "Condition": {"StringEquals": {"aws:SourceAccount": ACCOUNT, "aws:SourceArn": group}},
        },
        name="scheduler-role trust",
    )
    own = Context.of({"aws:SourceAccount": ACCOUNT, "aws:SourceArn": group})
    assert evaluate_trust(documented, SCHEDULER, role_arn=ROLE, context=own).allowed
    other_group = Context.of({"aws:SourceAccount": ACCOUNT, "aws:SourceArn": group + "-2"})
    refused = evaluate_trust(documented, SCHEDULER, role_arn=ROLE, context=other_group)
    assert refused.reason.endswith(
        f"condition StringEquals aws:SourceArn is {group}-2, not {group} "
        "(scheduler-role trust, statement 0)"
    )


def test_a_federated_principal_assumes_a_role_with_its_web_identity() -> None:
    """AWS JSON policy elements: Principal, "Federated web identity user principals": the
    trust policy names the identity provider, the action is
    ``sts:AssumeRoleWithWebIdentity`` and a condition limits the audience."""
    web = trust(
        {
            "Effect": "Allow",
            "Principal": {"Federated": "cognito-identity.amazonaws.com"},
            "Action": "sts:AssumeRoleWithWebIdentity",
            "Condition": {
                "StringEquals": {"cognito-identity.amazonaws.com:aud": "us-east-2:pool-id"}
            },
        }
    )
    cognito = Principal.federated("cognito-identity.amazonaws.com")
    audience = Context.of({"cognito-identity.amazonaws.com:aud": "us-east-2:pool-id"})
    action = "sts:AssumeRoleWithWebIdentity"
    assert evaluate_trust(web, cognito, role_arn=ROLE, context=audience, action=action).allowed
    assert not evaluate_trust(web, cognito, role_arn=ROLE, context=audience).allowed
    other = Principal.federated("accounts.google.com")
    assert not evaluate_trust(web, other, role_arn=ROLE, context=audience, action=action).allowed


def test_a_key_policy_must_allow_even_within_the_account() -> None:
    """How AWS enforcement code logic evaluates requests ("IAM role trust policies and KMS
    key policies are exceptions": they must allow explicitly) and the AWS KMS Developer
    Guide's default key policy, whose statement "Enable IAM User Permissions" names the
    account and so lets the identity policies decide."""
    key = f"arn:aws:kms:us-east-1:{ACCOUNT}:key/1234abcd-12ab-34cd-56ef-1234567890ab"
    role = Principal.aws(f"arn:aws:iam::{ACCOUNT}:role/scheduler-role")
    decrypts = identity(allow("kms:Decrypt", key), name="scheduler-role/inline")
    request = Request("kms:Decrypt", key, role)
    default_key_policy = resource(
        {
            "Sid": "Enable IAM User Permissions",
            "Effect": "Allow",
            "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:root"},
            "Action": "kms:*",
            "Resource": "*",
        }
    )
    assert authorize(
        request, identity=[decrypts], resource_policy=default_key_policy, resource_must_allow=True
    ).allowed
    admins_only = resource(
        {
            "Effect": "Allow",
            "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:role/admin"},
            "Action": "kms:*",
            "Resource": "*",
        }
    )
    refused = authorize(
        request, identity=[decrypts], resource_policy=admins_only, resource_must_allow=True
    )
    assert refused.reason == (
        f"the policy of {key} must allow it too, and no statement of it allows kms:Decrypt"
    )
    # An ordinary resource policy would have let the identity policy decide.
    assert authorize(request, identity=[decrypts], resource_policy=admins_only).allowed
    named = resource(allow("kms:Decrypt", "*", Principal={"AWS": role.name}))
    assert authorize(request, resource_policy=named, resource_must_allow=True).allowed
