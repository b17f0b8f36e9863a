"""The one way in: every create, update and delete of a schedule group, a schedule, a rule
and a rule's targets, and all-or-nothing batches.

Every door hands it a shape-validated request (the APIs validate by their service models,
a stack's loader and a state import by the same models): the Scheduler and EventBridge
handlers call ``Commands`` (``layer``), a stack's load fills one ``Batch`` (``batch``) and
applies it, a state import checks its stored records with ``Vetting`` (``vetting``). The
semantic checks each operation makes live once, beside what its request makes:
``schedules`` (CreateSchedule, UpdateSchedule, CreateScheduleGroup), ``rules`` (PutRule,
and the event bus a request names) and ``rule_targets`` (PutTargets). ``call`` says who
changes what, and when. The records of groups, schedules, rules and targets are made here
and nowhere else (``tests/house/test_one_way_in.py``); the store checks them against the
state (a name taken, a group missing, a quota) and keeps them.
"""
